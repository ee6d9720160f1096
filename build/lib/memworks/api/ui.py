"""The memory page: a person sees, confirms and deletes what is remembered about them.

Plain HTML and a little JavaScript calling the same /v1 routes with the person's own end-user
key; nothing to build, nothing stored in the browser beyond the page's lifetime.
"""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

router = APIRouter()


@router.get("/ui", response_class=HTMLResponse, include_in_schema=False)
def memory_page() -> HTMLResponse:
    page = resources.files("memworks.api").joinpath("static/ui.html").read_text(encoding="utf-8")
    return HTMLResponse(
        page, headers={"Cache-Control": "no-store", "Content-Security-Policy": "default-src 'self' 'unsafe-inline'"}
    )
