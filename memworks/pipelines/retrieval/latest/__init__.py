"""The latest answer: to a question about what holds now (:mod:`.now`), and to one asking for
the latest run of a tool's results (:mod:`.runs`)."""
