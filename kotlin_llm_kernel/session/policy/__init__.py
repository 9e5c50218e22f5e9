"""The one run policy of a snippet, for any host: its submission, its time limit, the escalation of its interrupt and
a snippet that could not be stopped (later ones then fail as busy). It may import the rest of ``session``, ``config``
and ``jvm``; nothing else in ``session`` imports it."""
