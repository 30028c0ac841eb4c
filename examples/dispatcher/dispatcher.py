#!/usr/bin/env python3
"""A small dispatcher: a model proposes shell commands as text, asimov decides and runs them.

The seed's two-phase protocol, against `asimov serve`:
  1. The conversation goes to a model (any OpenAI-compatible /v1/chat/completions endpoint).
  2. Its reply goes to asimov's POST /v1/proposals with execute: true. asimov finds the reply's one
     `EXECUTE: <command>` line, decides it, and runs it only when its policy allows.
  3. The output, or the denial and its reason, or "one command at a time", is the next user message.
  4. Until the model answers without an EXECUTE line (its final answer) or the step limit is reached.

Python 3 standard library only. Configuration (flags win over the environment):
  ASIMOV_URL       asimov serve's address            (default http://127.0.0.1:7420)
  ASIMOV_TOKEN     a token with scopes decide,execute (asimov serve token create --name dispatcher --scopes decide,execute)
  OPENAI_BASE_URL  the model's API base URL          (default https://api.openai.com/v1)
  OPENAI_API_KEY   the model's API key
  OPENAI_MODEL     the model                         (default gpt-4o-mini)

Exit codes: 0 the model gave a final answer; 1 bad usage or an HTTP error; 3 the step limit was reached.
"""

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
import uuid

SYSTEM_PROMPT = """You operate a machine through a shell, one command at a time.
To run a command, write a line that starts with EXECUTE: followed by the command, for example:
EXECUTE: uname -a
Write at most one EXECUTE line per reply, then stop and wait: the next message will be its output.
Every command is checked by a policy first; a refused command does not run and you are told why.
Do not retry a refused command unchanged. When you are done, answer without any EXECUTE line."""

MAX_OUTPUT_CHARS = 20_000


class HttpFailure(Exception):
    pass


def post_json(url, body, headers, timeout):
    data = json.dumps(body).encode("utf-8")
    req = urllib.request.Request(url, data=data, method="POST", headers={"content-type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.loads(resp.read().decode("utf-8"))
    except urllib.error.HTTPError as e:
        text = e.read().decode("utf-8", "replace")
        try:
            parsed = json.loads(text)
            message = parsed.get("message") or parsed.get("error", {}).get("message") or text
        except (ValueError, AttributeError):
            message = text
        raise HttpFailure(f"{url} answered {e.code}: {message}") from None
    except urllib.error.URLError as e:
        raise HttpFailure(f"{url} cannot be reached: {e.reason}") from None


def ask_model(args, messages):
    base = args.model_url.rstrip("/")
    headers = {"authorization": f"Bearer {args.model_key}"} if args.model_key else {}
    answer = post_json(f"{base}/chat/completions", {"model": args.model, "messages": messages}, headers, args.model_timeout)
    try:
        content = answer["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise HttpFailure(f"the model's answer has no message: {json.dumps(answer)[:500]}") from None
    return content or ""


def propose(args, text, session_id):
    body = {"text": text, "cwd": args.cwd, "execute": True, "sessionId": session_id, "agent": "dispatcher"}
    if args.timeout_ms:
        body["timeoutMs"] = args.timeout_ms
    # The command's own time limit is enforced by asimov; this one only keeps the dispatcher from hanging.
    return post_json(f"{args.asimov_url.rstrip('/')}/v1/proposals", body, {"authorization": f"Bearer {args.token}"}, 15 * 60)


def clip(text):
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    half = MAX_OUTPUT_CHARS // 2
    return f"{text[:half]}\n[... {len(text) - MAX_OUTPUT_CHARS} characters left out ...]\n{text[-half:]}"


def feedback(answer):
    """What the model reads next: the result, the denial and its reason, or why nothing was decided."""
    proposal = answer["proposal"]
    if proposal["kind"] in ("several", "invalid"):
        return f"asimov: nothing ran. {proposal['reason']}"
    decision = answer["decision"]
    execution = answer.get("execution") or {}
    if not execution.get("executed"):
        rule = f" [{decision['rule']}]" if decision.get("rule") else ""
        return (
            f"asimov refused the command{rule} ({decision['verdict']}, {decision['tier']}): {decision['reason']}\n"
            "The command did not run. Do not retry it unchanged."
        )
    parts = [f"$ {proposal['command']}"]
    if execution.get("timedOut"):
        parts.append(f"(timed out after {execution['timeoutMs']} ms; the command was stopped)")
    parts.append(f"exit code: {execution['exitCode'] if execution['exitCode'] is not None else 'none (signal ' + str(execution['signal']) + ')'}")
    parts.append("stdout:\n" + (clip(execution["stdout"]) or "(empty)"))
    if execution["stderr"]:
        parts.append("stderr:\n" + clip(execution["stderr"]))
    if execution.get("truncated"):
        parts.append("(the output was cut in the middle: it was too long)")
    return "\n".join(parts)


def say(who, text):
    print(f"--- {who}\n{text}", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description="A model proposes commands (EXECUTE: <command>); asimov decides and runs them.")
    p.add_argument("task", help="what to ask the model to do")
    p.add_argument("--cwd", default=os.getcwd(), help="where commands run (absolute; inside asimov serve's allowed roots); default: here")
    p.add_argument("--max-steps", type=int, default=10, help="model replies at most (default 10)")
    p.add_argument("--timeout-ms", type=int, default=0, help="each command's time limit (default: asimov's)")
    p.add_argument("--asimov-url", default=os.environ.get("ASIMOV_URL", "http://127.0.0.1:7420"))
    p.add_argument("--token", default=os.environ.get("ASIMOV_TOKEN", ""))
    p.add_argument("--model-url", default=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"))
    p.add_argument("--model-key", default=os.environ.get("OPENAI_API_KEY", ""))
    p.add_argument("--model", default=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"))
    p.add_argument("--model-timeout", type=float, default=120.0, help="seconds to wait for one model reply")
    args = p.parse_args(argv)
    if not args.token:
        print("dispatcher: no asimov token: set ASIMOV_TOKEN or pass --token", file=sys.stderr)
        return 1
    if not os.path.isabs(args.cwd):
        print(f"dispatcher: --cwd must be an absolute path, not {args.cwd}", file=sys.stderr)
        return 1
    if args.max_steps < 1:
        print("dispatcher: --max-steps must be at least 1", file=sys.stderr)
        return 1

    session_id = f"dispatcher-{uuid.uuid4()}"
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": args.task}]
    say("user", args.task)
    try:
        for _ in range(args.max_steps):
            reply = ask_model(args, messages)
            messages.append({"role": "assistant", "content": reply})
            say("model", reply)
            answer = propose(args, reply, session_id)
            if answer["proposal"]["kind"] == "none":
                return 0
            result = feedback(answer)
            say("asimov", result)
            messages.append({"role": "user", "content": result})
    except HttpFailure as e:
        print(f"dispatcher: {e}", file=sys.stderr)
        return 1
    print(f"dispatcher: stopped after {args.max_steps} steps without a final answer", file=sys.stderr)
    return 3


if __name__ == "__main__":
    sys.exit(main())
