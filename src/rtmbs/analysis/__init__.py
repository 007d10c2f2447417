"""Offline analyses of a model or of its results: sizes and rank (``sizes``), suspension
kinematics and compliance (``kc``), static equilibrium of a vehicle (``statics``) and virtual
sensors on recorded results (``sensors``). None of them runs in a real-time step."""
