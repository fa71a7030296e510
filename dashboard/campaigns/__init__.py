"""Labelling campaigns: named sets of responses with an overlap, per-person queues and holds
(`campaigns.py`, SQL in `campaigns_sql.py`), and people's agreement in each (`agreement.py`)."""
