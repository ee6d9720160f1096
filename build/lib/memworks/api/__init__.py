"""The HTTP API (FastAPI) over the ``Memworks`` facade, with tenant-bound keys."""

from memworks.api.app import create_app
from memworks.api.auth import Principal
from memworks.api.middleware import MAX_BODY_BYTES

__all__ = [
    # the app
    "create_app",
    "MAX_BODY_BYTES",
    # who is calling
    "Principal",
]
