"""Imported before asyncssh by the benchmarks: the dependency warnings `lovelet` itself
filters (`server.commands.quiet`) are filtered here too, so a benchmark prints only its
figures."""

from server.commands.quiet import quiet_library_warnings

quiet_library_warnings()
