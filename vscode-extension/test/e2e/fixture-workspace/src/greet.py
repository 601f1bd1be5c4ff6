"""A tiny module the end-to-end test edits, approves and rewinds."""


def greet(name):
    message = "Hello, " + name
    return message


if __name__ == "__main__":
    print(greet("world"))
