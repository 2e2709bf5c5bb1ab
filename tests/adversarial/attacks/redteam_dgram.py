# Red team: reach a UNIX datagram socket of the machine (journald's /dev/log is one anyone may write)
# without connect, which the filter refuses: sendto and sendmsg name the address with each datagram,
# from a socket of its own or from one end of a socketpair.
import socket

#@@INCLUDE:_common.py@@

TARGET = "@@SOCKET@@"


def _sendto(kind):
    s = socket.socket(socket.AF_UNIX, kind)
    try:
        s.sendto(b"PWNED-sendto @@MARKER@@", TARGET)
    finally:
        s.close()


def _sendmsg():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        s.sendmsg([b"PWNED-sendmsg @@MARKER@@"], [], 0, TARGET)
    finally:
        s.close()


def _pair():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        a.sendto(b"PWNED-pair @@MARKER@@", TARGET)
    finally:
        a.close()
        b.close()


def attack(when):
    _try("sendto", _sendto, socket.SOCK_DGRAM)
    _try("sendmsg", _sendmsg)
    _try("pair", _pair)


#@@INCLUDE:_starter.py@@

_honest_run_agent = run_agent


def run_agent(task, tools, call_model, execute_tool):
    attack("run")
    return _honest_run_agent(task, tools, call_model, execute_tool)


attack("load")
