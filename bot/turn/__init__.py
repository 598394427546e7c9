"""The turn: one question run through the graph, ended in one place.

`service` (AnswerService, the entry the core and the app use) streams a turn;
`run` loads its history, runs the graph and makes its events and result; `ending`
decides how it ended (a state machine); `settling` stores and traces that ending
once, and waits for the stores cancelled turns leave running before the process
closes; `stoppable` lets the asker stop the graph at once.
"""
