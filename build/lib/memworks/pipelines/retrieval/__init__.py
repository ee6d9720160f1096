"""Retrieval: the learned ranker's features and model (:mod:`.ranker`, ``ranker_model.json``),
ranking and the answer decision (:mod:`.ranking`), and time in questions and records
(:mod:`.timerange`).
"""
