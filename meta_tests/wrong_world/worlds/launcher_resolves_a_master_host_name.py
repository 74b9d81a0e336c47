"""A launcher that resolves a --master_addr given as a host name and hands its workers the IP
address (localhost -> 127.0.0.1), not the name as given; an address given as an IP (127.0.0.1)
and the rendezvous' own host name (no --master_addr) reach them as before.

Makes dist.launch-master-node0 wrong (its holding case: node 0's address given as a host name).
"""

TARGET = "torch.distributed.run"


def patch(module):
    import ipaddress
    import socket

    run = module.run

    def run_with_the_address_resolved(args):
        addr = getattr(args, "master_addr", None)
        if addr:
            try:
                ipaddress.ip_address(addr)
            except ValueError:
                args.master_addr = socket.gethostbyname(addr)
        return run(args)

    module.run = run_with_the_address_resolved
