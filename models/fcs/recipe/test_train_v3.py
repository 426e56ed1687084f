"""Unit test of train_v3.py's --hold-out-fit split (needs the recipe venv, for torch):
  models/fcs/.venv/bin/python -m unittest models/fcs/recipe/test_train_v3.py

The split must be the one real-eval.ts (`devPart`) uses to pick the dev triples the combination is fitted on;
otherwise the fit would weigh a model on triples it was trained on. The expected parts below were printed by
packages/fcs/scripts/real-eval.ts's devPart for the same ids (2026-12-06).
"""
import json, os, sys, tempfile, unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_v3

FROM_REAL_EVAL = {"wice-0": "train", "wice-1": "fit", "wice_oracle-1": "fit", "wice-2": "train", "summedits-10": "train",
                  "begin-3": "train", "expertqa-7": "train", "snli-5": "train", "snli-6": "fit", "summedits-11": "train"}


class HoldOutFitTest(unittest.TestCase):
    def test_dev_part_is_real_evals(self):
        for row_id, part in FROM_REAL_EVAL.items():
            self.assertEqual(train_v3.dev_part(row_id), part, row_id)

    def test_hold_out_fit_drops_only_factcheck_and_snli_fit_rows(self):
        rows = [{"id": "wice-1", "set": "factcheck_wice"}, {"id": "wice-0", "set": "factcheck_wice"},
                {"id": "snli-6", "set": "snli"}, {"id": "snli-5", "set": "snli"},
                {"id": "wice-1", "set": "docnli_mnli"}]  # another source's id that happens to hash to 'fit'
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "train.jsonl"), "w") as fh:
                fh.writelines(json.dumps(r) + "\n" for r in rows)
            with mock.patch.object(train_v3, "DATA", d):
                kept = [(r["set"], r["id"]) for r in train_v3.load_rows("train", [], hold_out_fit=True)]
                every = train_v3.load_rows("train", [], hold_out_fit=False)
        self.assertEqual(kept, [("factcheck_wice", "wice-0"), ("snli", "snli-5"), ("docnli_mnli", "wice-1")])
        self.assertEqual(len(every), 5)


class ResumeTest(unittest.TestCase):
    def test_resume_refuses_other_data_settings(self):
        saved = {"model": "student", "hold_out_fit": True, "epochs": 1.0, "bs": 16, "max_minutes": 12.5}
        self.assertEqual(train_v3.resume_mismatch(saved, dict(saved, max_minutes=13.0)), [])  # chunk length may change
        bad = train_v3.resume_mismatch(saved, dict(saved, hold_out_fit=False))
        self.assertEqual(len(bad), 1)
        self.assertIn("--hold-out-fit", bad[0])


if __name__ == "__main__":
    unittest.main()
