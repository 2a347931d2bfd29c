"""Which test files get the "create a task" message: once per file, one message out per repository
at a time, never again in a repository that dismissed it (the pure decision; the e2e tests show it)."""

from __future__ import annotations

from prism_lsp.repo.offer import InitOffers, Offer


def test_one_message_is_out_per_repository_until_it_is_answered(tmp_path):
    repo, other = tmp_path / "repo", tmp_path / "other"
    a, b, c = (Offer(repo, repo / "tests" / f"test_{n}.py") for n in "abc")
    offers = InitOffers()
    assert offers.first_time(a)
    # Opened while a's message is out: told now, a dismissal of a's would come too late for it.
    assert not offers.first_time(b)
    assert offers.first_time(Offer(other, other / "tests" / "test_a.py"))  # its own repository
    offers.answered(a)  # answered with the button (or the message failed): not a dismissal
    assert offers.first_time(c)
    offers.decline(c)
    offers.answered(c)
    assert not offers.first_time(b)  # dismissed: never again in that repository
    assert not offers.first_time(a)  # and once per file anyway
