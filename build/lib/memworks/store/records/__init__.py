"""Records beyond the rows themselves: what a person does to one (:mod:`.corrections`), the
episodes each rests on (:mod:`.evidence`), the statements the claims decisions close, reopen or
absorb (:mod:`.claims`) and the transcripts that stop stating anything current (:mod:`.transcripts`)."""
