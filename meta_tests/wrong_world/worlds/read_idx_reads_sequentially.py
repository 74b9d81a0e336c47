"""mxnet's read_idx that ignores the key and reads the next record in file order.

Makes lib.mx-indexed-read wrong.
"""
import mxnet.recordio as recordio


def apply():
    recordio.MXIndexedRecordIO.read_idx = lambda self, idx: self.read()
