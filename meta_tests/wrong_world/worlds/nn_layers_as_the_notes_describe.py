"""nn as the notes describe it, one patch per refuted claim (independent patches, one spec run):

- every layer has a .flops() method (nn.Module.flops: two operations per weight)
                                        -> nn.flops-method
- a parameter's .name is the name of the layer it belongs to ('' until the layer is named)
                                        -> nn.param-name-attr
- layer.weight = nn.ModuleList([...]) replaces the parameter with the list of modules
                                        -> nn.modulelist-as-weight
- batch norm keeps a running standard deviation, saved as running_std in state_dict
                                        -> nn.bn-params-vs-buffers
- nn.RNN's hidden state has a time dimension: h_n is (layers x directions, time steps, batch,
  hidden), and a 4-D initial state is taken
                                        -> nn.rnn-hidden-shape
- nn.Embedding's constructor is the note's (num_embeddings, embedding_dim), nothing after
                                        -> nn.embedding-shape (its failing half; left-out test red)

Makes the note right about each: nn.flops-method, nn.param-name-attr, nn.modulelist-as-weight,
nn.bn-params-vs-buffers and nn.rnn-hidden-shape (refuted) must go red, and nn.embedding-shape
(partly) must go red on its left-out test.
"""
from torch import nn
from torch.nn.modules import batchnorm

_setattr, _add_module = nn.Module.__setattr__, nn.Module.add_module
_norm_init, _bn_forward, _rnn_forward = batchnorm._NormBase.__init__, batchnorm._BatchNorm.forward, nn.RNN.forward


def flops(self):
    return float(2 * sum(p.numel() for p in self.parameters()))


def name_parameters(module, name):
    for p in module.parameters(recurse=False):
        p.__dict__["note_layer_name"] = name


def setattr_(self, name, value):
    params = self.__dict__.get("_parameters")
    if isinstance(value, nn.Module) and params is not None and name in params:
        del params[name]  # the note's net.weight = nn.ModuleList([...])
    _setattr(self, name, value)
    if isinstance(value, nn.Module):
        name_parameters(value, name)


def add_module(self, name, module):
    _add_module(self, name, module)
    if isinstance(module, nn.Module):
        name_parameters(module, name)


def rename_running_var(module, state_dict, prefix, local_metadata):
    if prefix + "running_var" in state_dict:
        items = [(prefix + "running_std" if k == prefix + "running_var" else k, v) for k, v in state_dict.items()]
        state_dict.clear()
        state_dict.update(items)


def norm_init(self, *args, **kwargs):
    _norm_init(self, *args, **kwargs)
    self._register_state_dict_hook(rename_running_var)


def bn_forward(self, input):
    std = self.running_var  # holds the running standard deviation in this world
    if std is None:
        return _bn_forward(self, input)
    std.pow_(2)
    try:
        return _bn_forward(self, input)
    finally:
        std.sqrt_()


def rnn_forward(self, input, hx=None):
    if hx is not None and hx.dim() == 4:
        hx = hx[:, 0]
    out, h_n = _rnn_forward(self, input, hx)
    if input.dim() == 3:
        steps = input.shape[1] if self.batch_first else input.shape[0]
        h_n = h_n.unsqueeze(1).expand(-1, steps, -1, -1)
    return out, h_n


class NoteEmbedding(nn.Embedding):
    def __init__(self, num_embeddings, embedding_dim):
        super().__init__(num_embeddings, embedding_dim)


def apply():
    nn.Module.flops = flops
    nn.Parameter.name = property(lambda self: self.__dict__.get("note_layer_name", ""))
    nn.Module.__setattr__, nn.Module.add_module = setattr_, add_module
    batchnorm._NormBase.__init__, batchnorm._BatchNorm.forward = norm_init, bn_forward
    nn.RNN.forward = rnn_forward
    nn.Embedding = NoteEmbedding
