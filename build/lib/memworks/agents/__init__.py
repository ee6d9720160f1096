"""Adapters that give agent frameworks memworks as their memory (optional: the ``agents`` extra).

``memworks.agents.langgraph.MemworksStore`` is LangGraph's ``BaseStore``; import it from there,
so this package imports without the framework installed.
"""

__all__: list[str] = []
