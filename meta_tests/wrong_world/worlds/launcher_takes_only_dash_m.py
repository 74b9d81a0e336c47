"""A launcher whose module option has one spelling: -m runs the script as a module, --module is an
option of its own that sets nothing (in the pytest process, where the spec parses the launcher's
arguments; the launches themselves use -m).

Makes dist.launch-module wrong (its holding case: the -m and --module spellings both set module).
"""


def apply():
    import torch.distributed.launch as launch
    import torch.distributed.run as run

    get_args_parser = run.get_args_parser

    def parser_with_dash_m_only():
        parser = get_args_parser()
        action = parser._option_string_actions.pop("--module")
        action.option_strings.remove("--module")
        parser.add_argument("--module", dest="module_spelled_out", action="store_true")
        return parser

    run.get_args_parser = launch.get_args_parser = parser_with_dash_m_only
