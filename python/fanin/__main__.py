"""`python -m fanin` is the `fanin` command."""

from fanin.cli import main

main()
