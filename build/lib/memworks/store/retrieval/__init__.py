"""The read path's store: the candidate queries, their measurements and the ranking they feed
(:mod:`.search`), and the scope and time filters applied inside every candidate query
(:mod:`.filters`)."""
