"""The tests of wordfreq: `python3 -m unittest` runs them."""

import unittest

from wordfreq import top_words


class TopWords(unittest.TestCase):
    def test_the_most_frequent_come_first(self):
        self.assertEqual(top_words("b a b c b a", 2), [("b", 3), ("a", 2)])

    def test_case_does_not_matter(self):
        self.assertEqual(top_words("The the THE", 1), [("the", 3)])


if __name__ == "__main__":
    unittest.main()
