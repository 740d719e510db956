"""The delay model in pure PyTorch: the features and their preprocessing (``data``), the
network, the training loop (``trainer``) and its distributed runtime (``runtime``), the
training job description (``job``), and ``train``, the process every launcher starts.

May import: dagster_pipes (``train`` only: the protocol a training process speaks to Dagster,
a small library without Dagster itself).
"""
