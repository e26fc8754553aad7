"""Training learned agents by self-play (``dynasty train``): generations of self-play games with
the current search, a policy-and-value network fitted to them with PyTorch, each new network
gated against the best so far on shared deals.  ``model`` is the network in PyTorch and its
conversion to the arrays agents/net.py evaluates."""
