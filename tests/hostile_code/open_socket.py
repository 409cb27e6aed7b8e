import socket
def reference(variant, inputs, scalars, params):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=2)
    s.sendall(b"exfiltrated")
    return {"y": inputs["x"]}
