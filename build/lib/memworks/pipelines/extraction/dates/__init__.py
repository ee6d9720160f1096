"""Time in statements: the tense of a clause (:mod:`.tense`), the words of time (:mod:`.time_words`)
and dates resolved against when a statement was said (:mod:`.timeparse`)."""
