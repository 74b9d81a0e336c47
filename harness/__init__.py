"""The claims machinery: claim -> test -> verdict -> report -> matrix.

    inventory    tests/claims/*.toml: the claims, their standings per torch version, corrections
    verdicts     the verdict words and verdict_for(), the only place a verdict is decided (torch-free)
    provenance   source and claim hashes: evidence from an older test or claim decides nothing
    probe        the environment a run had (torch, GPUs, preflight) and its fingerprint
    report       reports/claims.json and .md: build, merge, atomic write under a lock
    claims_plugin  the pytest plugin that records each linked test's outcome and writes the report
    stash        what the needs marker (fixtures/needs.py) leaves on each test item for the plugin
    matrix/      docs/matrix/: every cell recomputed from committed evidence with the current inventory
    versions, note_order, speed, timeline, expect_torch: version parsing, the notes' section order,
                 the suite's own timing tools, tox's check of the installed torch

Arrows point one way: inventory -> verdicts -> report -> claims_plugin -> matrix, and nothing here
imports fixtures/ (the helpers that test bodies import, which may use this package).
"""
