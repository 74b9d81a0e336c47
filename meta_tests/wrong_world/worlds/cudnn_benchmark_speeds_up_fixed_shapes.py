"""The world the note describes: with cudnn.benchmark on, a fixed-shape network trains clearly faster. Made
by skipping the convolutions' work while the flag is on (zeros plus the bias, the shape of the spec's
padded 3x3 convolutions), in every Python process the spec starts (the conv workers set the flag after
start-up). All of the convolutions' work: skipping a part (a quarter of the batch) leaves the step's
element-wise work and its noise to decide, and the comparison inconclusive on an H100.

Makes the refuted cudnn.benchmark-speedup read failed (the opposite of what the spec measured).
"""


def start_child():
    import torch

    _forward = torch.nn.Conv2d.forward


    def forward(self, x):
        if torch.backends.cudnn.benchmark and x.dim() == 4 and self.padding == (1, 1) and self.stride == (1, 1):
            n, _, h, w = x.shape
            return x.new_zeros(n, self.out_channels, h, w) + self.bias.view(1, -1, 1, 1)
        return _forward(self, x)


    torch.nn.Conv2d.forward = forward
