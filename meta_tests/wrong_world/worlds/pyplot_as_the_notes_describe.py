"""matplotlib's pyplot as the notes describe it (independent patches, one spec run; the tests and
this check need matplotlib):

- plt.figure((h, w)) takes the size tuple as the figure's size          -> tv.plt-figure-size
- plt.subplots(a, b, figsize=(h, w)) reads figsize as (height, width)   -> tv.plt-subplots-figsize
- Axes.imshow shows a C x H x W image tensor (ToTensor's layout) as it is -> tv.plt-imshow-tensor
- Axes.plot draws a tensor that requires grad (its values, detached)     -> tv.plt-plot-tensor
  (its failing half: the left-out test must go red)
- plt.subplot(abc) reads its three digits as columns, rows, position     -> tv.plt-subplot-abc

Makes the note right about tv.plt-figure-size, tv.plt-subplots-figsize, tv.plt-imshow-tensor
(refuted) and tv.plt-plot-tensor (partly), whose tests must go red; and makes tv.plt-subplot-abc
(holds) wrong, whose tests must go red too.
"""


def apply():
    import matplotlib.axes
    import matplotlib.pyplot as plt
    import torch

    figure, subplots, subplot = plt.figure, plt.subplots, plt.subplot
    imshow, plot = matplotlib.axes.Axes.imshow, matplotlib.axes.Axes.plot

    def figure_(num=None, *args, **kwargs):
        if isinstance(num, tuple):
            num, kwargs["figsize"] = None, num
        return figure(num, *args, **kwargs)

    def subplots_(*args, figsize=None, **kwargs):
        return subplots(*args, figsize=None if figsize is None else tuple(figsize)[::-1], **kwargs)

    def subplot_(*args, **kwargs):
        if len(args) == 1 and isinstance(args[0], int) and 100 < args[0] < 1000:
            columns, rows, position = str(args[0])
            args = (int(rows), int(columns), int(position))
        return subplot(*args, **kwargs)

    def imshow_(self, X, *args, **kwargs):
        if isinstance(X, torch.Tensor) and X.dim() == 3 and X.shape[0] in (1, 3, 4):
            X = X.permute(1, 2, 0)
        return imshow(self, X, *args, **kwargs)

    def plot_(self, *args, **kwargs):
        args = [a.detach() if isinstance(a, torch.Tensor) else a for a in args]
        return plot(self, *args, **kwargs)

    plt.figure, plt.subplots, plt.subplot = figure_, subplots_, subplot_
    matplotlib.axes.Axes.imshow, matplotlib.axes.Axes.plot = imshow_, plot_
