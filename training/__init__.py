"""Training the reader's pixel classifier on generated photos (not needed at run time).

``python -m training.dataset`` renders labelled photos (:mod:`synth`), ``python -m
training.train`` fits the small network on them and writes it to ``calibration/``
(``make model`` runs both). Training needs PyTorch (``pip install -e '.[train]'``);
reading photos needs no PyTorch (ONNX Runtime runs the networks).
"""
