"""User agents for tests/test_user_agents.py that work: one with parameters, one that records
what it is shown."""

from agents.user import SeatView


class Nth:
    """The ``n``-th lowest legal action (the highest if there are fewer); ``tag`` only shows in
    the label."""

    def __init__(self, n: int = 0, tag: str = ""):
        self.n = n

    def act(self, view, legal_actions):
        return legal_actions[min(self.n, len(legal_actions) - 1)]


SEEN: list[tuple[int, object, object, tuple, int]] = []  # (seat, observation, mask, fields, action)


class Recorder:
    """A random legal action from the view's generator; records the view's observation, action
    mask and layout in ``SEEN``."""

    def act(self, view: SeatView, legal_actions):
        a = int(view.rng.choice(legal_actions))
        SEEN.append(
            (
                view.seat,
                view.observation.copy(),
                view.action_mask.copy(),
                view.observation_fields,
                a,
            )
        )
        return a
