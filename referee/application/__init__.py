"""The application layer: use cases over ports.

- :mod:`.creating` (CreateMatch, dealing), :mod:`.acting` (SubmitAction, the one submit path,
  and the other commands on a live match), :mod:`.reading` (views, records, deal checks, the
  rejection trail), :mod:`.fanout` (watch streams: each version read and encoded once per
  audience): the use cases.
- :mod:`.principals`: who is asking (the token authority); :mod:`.answers`: what the use cases
  answer; :mod:`.ports`: what they need from the outside.
- :mod:`.live` (the live-match cache and locks), :mod:`.store` (the event store and the log
  reader over eventsourcing): adapters.
- :mod:`.referee`: the eventsourcing application that wires them, one facade.
"""

from referee.application.answers import Answer, Created, DealCheck, PublicEvent, View
from referee.application.principals import Credentials, Principal, Role, Tokens, hash_token
from referee.application.referee import Referee
from referee.application.store import LogReader

__all__ = [
    "Answer", "Created", "Credentials", "DealCheck", "LogReader", "Principal", "PublicEvent",
    "Referee", "Role", "Tokens", "View", "hash_token",
]
