"""Plays one complete two-player game through the Python client that openapi-python-client
generates from openapi/openapi.json (scripts/check-clients.sh runs it against a real server).

    python play_game.py BASE_URL GENERATED_DIR

GENERATED_DIR holds the generated package `racko_client`. Only the client's typed models and
operations are used, never raw HTTP: what this program needs is what every client needs.

Each player reads the game as they see it and picks one of `table.legal_actions`: every slot
wants a band of values (low ones in slot 5, high ones in slot 60); a card that belongs in a slot
whose card does not is taken (the discard) or placed (a drawn card), anything else is drawn or
discarded, and Racko is called as soon as it is legal. The game has a low target, so it ends
after a round or two; more than MAX_ACTIONS actions is a failure.
"""

from __future__ import annotations

import sys
import uuid

MAX_ACTIONS = 3000
TARGET = 100
# R1.4: the highest number card when a game does not choose its own deck
DEFAULT_MAX_NUMBER = {2: 50, 3: 60, 4: 75}


def main() -> int:
    base_url, generated = sys.argv[1], sys.argv[2]
    sys.path.insert(0, generated)

    from racko_client import AuthenticatedClient, Client
    from racko_client.api.accounts import create_guest, list_sessions, me, refresh, register
    from racko_client.api.lobby import create_game, join_by_code, my_games
    from racko_client.api.play import get_game, list_events, post_action
    from racko_client.models import (
        ActionRequest,
        AuthResponse,
        CallRackoAction,
        ChooseDealAction,
        Code,
        CreateGame,
        Credentials,
        DiscardDrawnAction,
        DrawAction,
        EventPage,
        GameCreatedEvent,
        GamePage,
        GameView,
        JoinByCode,
        JokerCard,
        MyGames,
        NumberCard,
        Options,
        PlaceBlitzCardAction,
        PlaceDrawnAction,
        Problem,
        PublicStatus,
        RefreshRequest,
        SessionList,
        SwapCardAction,
        SwapRacksAction,
        TakeDiscardAction,
        TurnPhase,
        GameOverPhase,
    )
    from racko_client.types import UNSET

    def ok(answer, kind):
        """The answer when it is a `kind`; a Problem (or nothing) fails the run."""
        if isinstance(answer, Problem):
            raise SystemExit(f"problem {answer.code.value}: {answer.detail}")
        if not isinstance(answer, kind):
            raise SystemExit(f"expected {kind.__name__}, got {answer!r}")
        return answer

    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)

    # One registered player and one guest; the guest's request has no body at all.
    name = "ann" + uuid.uuid4().hex[:8]
    ann = ok(
        register.sync(client=anonymous, body=Credentials(username=name, password="correct horse")),
        AuthResponse,
    )
    ben = ok(create_guest.sync(client=anonymous), AuthResponse)
    # Access tokens are short-lived: the guest trades its refresh token for the next pair, as a
    # client does when an answer says `token_expired`. The old refresh token is spent.
    renewed = ok(
        refresh.sync(client=anonymous, body=RefreshRequest(refresh_token=ben.refresh_token)),
        AuthResponse,
    )
    assert renewed.session_id == ben.session_id and renewed.account.id == ben.account.id
    assert renewed.refresh_token != ben.refresh_token
    ben = renewed
    players = [
        AuthenticatedClient(base_url=base_url, token=auth.token, raise_on_unexpected_status=True)
        for auth in (ann, ben)
    ]
    for client, auth in zip(players, (ann, ben)):
        assert ok(me.sync(client=client), type(auth.account)).username == auth.account.username
        # One device signed in: this one.
        listed = ok(list_sessions.sync(client=client), SessionList)
        assert [(s.id, s.current) for s in listed.sessions] == [(auth.session_id, True)], listed

    # A Problem comes back typed, its code an enum member.
    missing = get_game.sync(uuid.uuid4(), client=players[0])
    assert isinstance(missing, Problem) and missing.code == Code.GAME_NOT_FOUND, missing

    created = ok(
        create_game.sync(
            client=players[0],
            body=CreateGame(options=Options(players=2, bonus=True, target=TARGET)),
        ),
        GameView,
    )
    game_id = created.id
    # A new game is unlisted: Ben joins with the invite code Ann passes on.
    code = created.invite_code
    assert isinstance(code, str), code
    joined = ok(join_by_code.sync(client=players[1], body=JoinByCode(invite_code=code)), GameView)
    assert joined.status == PublicStatus.ACTIVE, joined.status
    print(f"game {game_id}: {ann.account.username} v {ben.account.username}")

    def max_number(view: GameView) -> int:
        deck = view.options.deck
        if deck is not None and deck is not UNSET:
            return deck.max_number
        players_count = view.options.players
        return DEFAULT_MAX_NUMBER[players_count if players_count is not UNSET else 2]

    def choose(view: GameView):
        table = view.table
        actions = table.legal_actions
        top = max_number(view)
        rack = table.rack if table.rack not in (None, UNSET) else []

        def band(value: int) -> int:
            return min(11, (value - 1) * 12 // top)

        def fits(index: int, card) -> bool:
            if isinstance(card, JokerCard):
                return True
            return isinstance(card, NumberCard) and band(card.value) == index

        def wanted_slot(card):
            """The slot this card would improve, if any."""
            if isinstance(card, NumberCard):
                index = band(card.value)
                if index < len(rack) and not fits(index, rack[index].card):
                    return rack[index].slot
            if isinstance(card, JokerCard):
                for slot in rack:
                    if not fits(slot.slot // 5 - 1, slot.card):
                        return slot.slot
            return None

        def first(kind):
            return next((a for a in actions if isinstance(a, kind)), None)

        for kind in (CallRackoAction, ChooseDealAction):
            if (action := first(kind)) is not None:
                return action
        if first(PlaceBlitzCardAction) is not None:
            card = table.blitz_card
            want = (band(card.value) + 1) * 5 if isinstance(card, NumberCard) else 30
            return min(
                (a for a in actions if isinstance(a, PlaceBlitzCardAction)),
                key=lambda a: abs(a.slot - want),
            )
        if first(TakeDiscardAction) is not None and table.discard:
            slot = wanted_slot(table.discard[-1])
            for action in actions:
                if isinstance(action, TakeDiscardAction) and action.slot == slot:
                    return action
        if (action := first(DrawAction)) is not None:
            return action
        if first(PlaceDrawnAction) is not None:
            slot = wanted_slot(table.drawn)
            for action in actions:
                if isinstance(action, PlaceDrawnAction) and action.slot == slot:
                    return action
            if (action := first(DiscardDrawnAction)) is not None:
                return action
        if first(SwapCardAction) is not None:
            # give away a card that does not fit
            for action in actions:
                if isinstance(action, SwapCardAction):
                    index = action.my_slot // 5 - 1
                    if index < len(rack) and not fits(index, rack[index].card):
                        return action
        for kind in (SwapCardAction, SwapRacksAction, DiscardDrawnAction, PlaceDrawnAction):
            if (action := first(kind)) is not None:
                return action
        return actions[0] if actions else None

    played = 0
    counts: dict[str, int] = {}
    while True:
        views = [ok(get_game.sync(game_id, client=p), GameView) for p in players]
        if views[0].status == PublicStatus.FINISHED:
            break
        # Racko may be called on anyone's turn (R4.2): the caller who can goes first.
        order = sorted(
            range(2),
            key=lambda i: not any(isinstance(a, CallRackoAction) for a in views[i].table.legal_actions),
        )
        seat = next((i for i in order if views[i].table.legal_actions), None)
        if seat is None:
            raise SystemExit(f"nobody may act in phase {views[0].table.phase!r}")
        action = choose(views[seat])
        result = post_action.sync(
            game_id,
            client=players[seat],
            body=ActionRequest(action=action, version=views[seat].version),
        )
        if isinstance(result, Problem):
            raise SystemExit(f"{type(action).__name__} refused: {result.code.value}: {result.detail}")
        played += 1
        counts[action.type_.value] = counts.get(action.type_.value, 0) + 1
        if played > MAX_ACTIONS:
            raise SystemExit(f"no end after {MAX_ACTIONS} actions")

    final = views[0]
    assert isinstance(final.table.phase, GameOverPhase), final.table.phase
    assert not isinstance(final.table.phase, TurnPhase)
    totals = final.table.totals
    assert max(totals) >= TARGET, totals
    inbox = ok(my_games.sync(client=players[0], filter_=MyGames.FINISHED), GamePage)
    assert any(g.id == game_id for g in inbox.games), "the finished game is in the inbox"
    events = ok(list_events.sync(game_id, client=players[0]), EventPage)
    assert isinstance(events.events[0].event, GameCreatedEvent), events.events[0].event
    print(
        f"finished after {played} actions and {final.table.round_} round(s): totals {totals}, "
        f"winners {final.table.phase.winners}; {len(events.events)} log entries on the first page"
    )
    print("actions:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
