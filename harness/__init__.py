"""The claims machinery: claim -> test -> verdict -> report -> matrix.

    inventory    tests/claims/*.toml: the claims, their standings per torch version, corrections
    verdicts     the verdict words and verdict_for(), the only place a verdict is decided (torch-free)
    provenance   source and claim hashes: evidence from an older test or claim decides nothing
    evidence_files  rekey / rename: provenance's changes applied to report and evidence files
    probe        the environment a run had (torch, GPUs, preflight) and its fingerprint
    evidence     the floor: the evidence types (test record, run, claim entry, environment,
                 report), the outcome words, the one rule that merges records, what a run
                 selected, notes as (label, text); it imports nothing from harness
    report       the claims report built from records, a run's records merged into it
    storage      reports/claims.json on disk: load, lock, move aside, atomic write
    rendering    the report's text: the terminal summary, a line per claim, claims.md
    session      ClaimsRun, a run's state and hooks: records each linked test's outcome, writes the report
    claims_plugin  the pytest plugin: options, ClaimsRun's registration, the figure fixtures
    stash        what the needs marker (fixtures/needs.py) leaves on each test item for the plugin
    matrix/      docs/matrix/: every cell recomputed from committed evidence with the current inventory
    versions, note_order, speed, timeline, expect_torch: version parsing, the notes' section order,
                 the suite's own timing tools, tox's check of the installed torch

Arrows point one way, every import counted (function-level and type-only ones too; meta test
test_harness_units.py reads them with ast): evidence <- verdicts <- inventory; evidence <- storage,
rendering <- provenance <- report <- session <- claims_plugin; evidence_files uses provenance,
storage and rendering; the matrix reads evidence, report, storage and rendering and nothing reads
the matrix. Nothing here imports fixtures/ (the helpers that test bodies import, which may use this
package).
"""
