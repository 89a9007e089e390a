"""The report of `focal bench intents` (focal.bench.intents_report.format_intents) on figures built by hand: the
Banking77 table (mean ± std over seeds, per seed), the CLINC150 table and ambiguity trap beside the published
figures, the throughput lines; and a slice without CLINC150."""

from __future__ import annotations

from focal.bench.intents_report import BankingResult, ClincRow, IntentsRun, MarginRow, format_intents


def run_full() -> IntentsRun:
    run = IntentsRun(weight=0.3, shots=(10, 30), seeds=(0, 1), full=True, clinc=True, classes=None, per_label=None,
                     threads=1, cache_dir=".cache", throughput=812.4, throughput_sentences=1000, embedded=64,
                     embed_seconds=0.5, seconds=12.34)
    run.banking = [("Focal offline sensor", BankingResult({10: [86.5, 87.25], 30: [90.0]}, 93.1)),
                   ("  nearest example only (w = 0)", BankingResult({10: [82.0, 82.5]}, None))]
    nan = float("nan")
    run.clinc_rows = [("Focal offline sensor", [ClincRow("val in-scope −1 pt", 0.395, 95.0, 60.0, 94.5, 58.25, 90.0),
                                                ClincRow("no threshold", nan, nan, nan, 96.0, 0.0, 80.0)])]
    run.margins = [("Focal offline sensor", MarginRow(0.02, 3.0, 45.0, 2.5, 40.0, 96.5))]
    return run


FULL = [
    '',
    'focal bench intents — offline intent sensor (IntentIndex: nearest example × logistic head, w = 0.3),'
    ' all-MiniLM-L6-v2 int8 ONNX, no hosted model',
    '  targets: Banking77 10-shot ≥ 89.8 (the best few-shot figure above); CLINC150 in-scope ≥ 95.0 with oos recall ≥ 60',
    '',
    'Banking77 accuracy %, test set                           10-shot         30-shot            full',
    '------------------------------------------------------------------------------------------------',
    'Focal offline sensor                                86.88 ± 0.53           90.00           93.10',
    '  nearest example only (w = 0)                      82.25 ± 0.35               –',
    'ICDA (LLM-augmented data), Lin et al. 2023                 89.79               –               –',
    'USE+ConveRT (MLP), Casanueva et al. 2020                   85.19               –           93.36',
    'USE (MLP), Casanueva et al. 2020                           84.23               –               –',
    'BERT-Large fine-tuned, Casanueva et al. 2020               83.42               –           93.66',
    'ConveRT (MLP), Casanueva et al. 2020                       83.32               –               –',
    '  (MiniLM 1-NN cosine, measured (README): Banking77 82.20 ± 0.66 / 88.67 ± 0.21 / 91.92; 30-shot column of'
    ' Casanueva et al. not retrievable here)',
    '  Focal offline sensor 10-shot per seed 86.50/87.25 (seeds 0,1)',
    '  Focal offline sensor 30-shot per seed 90.00 (seeds 0,1)',
    '  nearest example only (w = 0) 10-shot per seed 82.00/82.50 (seeds 0,1)',
    '',
    'CLINC150 full, test (in-scope / oos)              in-scope acc  oos recall  151-way  threshold  chosen by (on'
    ' val: in-scope / oos recall)',
    '----------------------------------------------------------------------------------------------------------------------------------------'
    '-',
    'Focal offline sensor                                     94.50       58.25    90.00      0.395  val in-scope'
    ' −1 pt (val 95.00 / 60.0)',
    '                                                         96.00        0.00    80.00          –  no threshold',
    'oos-threshold BERT, Larson et al. 2019                    96.2        52.3',
    'oos-threshold MLP on USE                                  93.4        49.1',
    'oos-threshold SVM (bag of words)                          88.2        18.0',
    'oos-train BERT                                            96.9        40.3',
    'oos-train MLP on USE                                      93.5        47.4',
    'oos-train Rasa                                            91.5        45.3',
    'oos-train DialogFlow                                      91.7        14.0',
    '  (out of scope: top score < threshold; thresholds chosen on the validation split only, never on test; the'
    ' 100 oos training queries are not used)',
    '',
    'CLINC150 ambiguity trap (top-2 gap < margin: ask)  margin  asked %  guess right %  answered acc  (val: asked % / guess right %)',
    '-------------------------------------------------------------------------------------------------------------------------------',
    'Focal offline sensor                               0.020     2.50          40.00         96.50  (val 3.00 / 45.00)',
    '  margin: the widest top-2 gap under which a guess is right at most half the time on val; agent defaults:'
    ' ambiguity_margin 0.125, clarify_floor 0.43, entry_threshold 0.55',
    '',
    'Embedding throughput: 812 sentences/s (MiniLM int8, onnxruntime 1 intra-op thread, length-sorted batches of'
    ' 32, 1000 Banking77 test sentences, cold cache)',
    '  this run embedded 64 uncached sentences in 0.5 s (128 sentences/s)',
    '  wall time 12.3 s; embeddings cached in .cache',
]
SLICE = [
    '',
    'focal bench intents — offline intent sensor (IntentIndex: nearest example × logistic head, w = 0),'
    ' all-MiniLM-L6-v2 int8 ONNX, no hosted model',
    '  SLICE (classes=3, rows per label=None): figures are NOT comparable to the anchors',
    '  targets: Banking77 10-shot ≥ 89.8 (the best few-shot figure above); CLINC150 in-scope ≥ 95.0 with oos recall ≥ 60',
    '',
    'Banking77 accuracy %, test set                           10-shot',
    '----------------------------------------------------------------',
    'Focal offline sensor                                           –',
    'ICDA (LLM-augmented data), Lin et al. 2023                 89.79',
    'USE+ConveRT (MLP), Casanueva et al. 2020                   85.19',
    'USE (MLP), Casanueva et al. 2020                           84.23',
    'BERT-Large fine-tuned, Casanueva et al. 2020               83.42',
    'ConveRT (MLP), Casanueva et al. 2020                       83.32',
    '  (MiniLM 1-NN cosine, measured (README): Banking77 82.20 ± 0.66 / 88.67 ± 0.21 / 91.92; 30-shot column of'
    ' Casanueva et al. not retrievable here)',
    '',
    'Embedding throughput: 0 sentences/s (MiniLM int8, onnxruntime 2 intra-op thread, length-sorted batches of 32,'
    ' 0 Banking77 test sentences, cold cache)',
    '  wall time 0.0 s; embeddings cached in (no cache)',
]


def test_the_whole_report():
    assert format_intents(run_full()).splitlines() == FULL


def test_a_slice_without_clinc_says_it_is_not_comparable():
    run = IntentsRun(weight=0.0, shots=(10,), seeds=(0,), full=False, clinc=False, classes=3, per_label=None, threads=2,
                     cache_dir=None)
    run.banking = [("Focal offline sensor", BankingResult({}, None))]
    assert format_intents(run).splitlines() == SLICE
