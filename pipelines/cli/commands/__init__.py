"""The ``plumbline`` commands that ``pipelines.cli.main`` dispatches to, one module per command
group; each imports what its work needs when it runs, so that ``plumbline --help`` stays quick."""
