"""``hand_finished(sender=Hand, hand=<Hand>)`` is sent inside the transaction that finishes a hand;
receivers (ledgers) enqueue their work with ``delay_on_commit``, so tables never imports them."""

from django.dispatch import Signal

hand_finished = Signal()
