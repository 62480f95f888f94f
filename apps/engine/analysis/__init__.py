"""Analysis of played hands from one seat's view: the 复盘 reviewer (``review``), which weighs every
decision of a finished hand with the searching bot's machinery (sampled worlds consistent with the
deciding seat's view, greedy play-outs). It reads hand records and exports (``records``) and the
bots' search (``bots``); only the command line (``cli``) and the platform sit above it."""
