"""Tooling beside the runtime: the demo, evaluation, benchmarks and the chaos harness.

None of it runs in a worker or the API. Evaluation and benchmarks need the ``eval`` extra
(``pip install 'memworks[eval]'``); the demo needs nothing beyond the runtime.
"""
