"""The hash chain of a table's events: the engine's (apps/engine/records/chain.py), re-exported here.

``hash = sha256(prev_hash + canonical_json(payload))``; the first event's ``prev_hash`` is 64 zeros.
One implementation, so what the tables app writes is exactly what ``python -m apps.engine verify``
checks.
"""

from apps.engine.records.chain import GENESIS_HASH, canonical_json, link_hash, seed_commitment, verify_chain

__all__ = ["GENESIS_HASH", "canonical_json", "link_hash", "seed_commitment", "verify_chain"]
