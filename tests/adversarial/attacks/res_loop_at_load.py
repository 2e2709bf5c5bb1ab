# Attack: loop forever while the module is loaded, swallowing every exception.
while True:
    try:
        while True:
            pass
    except BaseException:
        pass
