"""Unit test of the v3 decontamination rule (stdlib only):
  python3.11 -m unittest models/fcs/recipe/test_build_dataset_v3.py
"""
import hashlib, os, sys, tempfile, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from build_dataset_v3 import Decontaminator, tokens


def sampled(text):
    """(h12 of every sampled 8-shingle) of a text, by the rule in shared/data/factcheck/README.md."""
    t = tokens(text)
    out = []
    for i in range(len(t) - 7):
        h = hashlib.sha1(" ".join(t[i:i + 8]).encode()).hexdigest()
        if int(h[:8], 16) % 8 == 0:
            out.append(h[:12])
    return out


HELD = " ".join(f"word{i} held out evaluation text number {i * 7}." for i in range(400))
OTHER = " ".join(f"token{i} unrelated training passage about packages {i * 3}." for i in range(400))


class DecontaminatorTest(unittest.TestCase):
    def make(self, lines):
        fh = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
        fh.write("\n".join(lines) + "\n"); fh.close()
        self.addCleanup(os.unlink, fh.name)
        return Decontaminator(fh.name)

    def test_normalisation_matches_the_readme(self):
        self.assertEqual(tokens("Debian's APT-2.6, (v1)!"), ["debian", "s", "apt", "2", "6", "v1"])

    def test_drops_evidence_overlapping_the_list_and_keeps_the_rest(self):
        d = self.make(sampled(HELD))
        self.assertGreater(len(sampled(HELD)), 50)
        self.assertEqual(d.reason(HELD, "an answer"), "evidence_shingles")
        self.assertIsNone(d.reason(OTHER, "an answer"))

    def test_ten_percent_threshold(self):
        # Evidence cut so that its sampled shingles number a multiple of 10: exactly 10 % listed must drop it.
        toks = OTHER.split()
        while len(sampled(" ".join(toks))) % 10:
            toks.pop()
        text = " ".join(toks)
        other = sampled(text)
        k = len(other) // 10
        self.assertGreater(k, 2)
        self.assertEqual(self.make(other[:k]).reason(text, "x"), "evidence_shingles")
        self.assertIsNone(self.make(other[:k - 1]).reason(text, "x"))

    def test_answer_hash(self):
        answer = "The Eiffel Tower is 330 metres tall."
        h = hashlib.sha1(" ".join(tokens(answer)).encode()).hexdigest()[:12]
        d = self.make(["a:" + h])
        self.assertEqual(d.reason(OTHER, "the eiffel tower is 330 METRES tall"), "answer_hash")
        self.assertIsNone(d.reason(OTHER, "The Eiffel Tower is 324 metres tall."))

    def test_short_evidence_without_sampled_shingles_is_kept(self):
        d = self.make(sampled(HELD))
        self.assertIsNone(d.reason("too short to shingle", "x"))


if __name__ == "__main__":
    unittest.main()
