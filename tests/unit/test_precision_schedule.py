from sshbench.plan.base import RoundState
from sshbench.plan.schedules import PrecisionSchedule
from sshbench.results.model import Case, CaseKind, Direction

A = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="a")
B = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="b")


def test_precise_cases_drop_out_after_min_runs_and_others_stop_at_max() -> None:
    plan = PrecisionSchedule([A, B], min_runs=3, max_runs=5, seed=1)
    done: dict[str, int] = {}
    precise = {A.id: True, B.id: False}  # A is precise from the start, B never
    rounds = []
    while rnd := plan.next_round(RoundState(done, precise)):
        rounds.append([v.case.id for v in rnd])
        for visit in rnd:
            if visit.round:
                done[visit.case.id] = done.get(visit.case.id, 0) + 1
    assert sorted(rounds[0]) == sorted([A.id, B.id])  # warm-up
    assert done == {A.id: 3, B.id: 5}
    assert rounds[-1] == [B.id]


def test_precision_schedule_is_seeded() -> None:
    def orders(seed: int) -> list[list[str]]:
        plan = PrecisionSchedule([A, B], 4, 4, seed)
        done: dict[str, int] = {}
        out = []
        while rnd := plan.next_round(RoundState(done)):
            out.append([v.case.id for v in rnd])
            for v in rnd:
                if v.round:
                    done[v.case.id] = done.get(v.case.id, 0) + 1
        return out
    assert orders(5) == orders(5)
    assert any(orders(5) != orders(s) for s in range(6, 12))
