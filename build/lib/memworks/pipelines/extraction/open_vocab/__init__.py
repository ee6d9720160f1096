"""The ``open`` extractor (:mod:`.extractor`): every durable statement of a user turn, with an open
slot key, read from a dependency parse (:mod:`.parse`) through the frames of :mod:`.frames` and
:mod:`.clause`, what a clause names (:mod:`.objects`, :mod:`.states`, :mod:`.time`), the filters
that keep only what says something (:mod:`.filters`), forget requests (:mod:`.forget`), and the
statement written back as a sentence (:mod:`.statement`, :mod:`.render`; words in :mod:`.lexicon`)."""
