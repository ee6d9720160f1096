"""Text shared by the use cases: index terms (:mod:`.terms`) and sentence spans (:mod:`.spans`)."""
