"""Standing preferences and constraints (:mod:`.preferences`): what the speaker avoids, dislikes,
cannot, never or always does, prefers, is allergic to, fears or strictly follows, read from the
parse by clause (:mod:`.clauses`, :mod:`.read`, :mod:`.stance`; words in :mod:`.lexicon`), and
requests about how to act (:mod:`.requests`)."""
