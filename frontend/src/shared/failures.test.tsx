import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { describeFailure } from "./failures";
import { FailureText } from "./FailureText";

describe("describeFailure", () => {
  it.each([
    [
      "refused",
      'health check http://10.0.0.5:8080/healthz: Get "http://10.0.0.5:8080/healthz": dial tcp 10.0.0.5:8080: connect: connection refused',
      "The health check http://10.0.0.5:8080/healthz: the connection to 10.0.0.5:8080 was refused: nothing is listening there, or the service is still starting.",
    ],
    [
      "timeout",
      'download artifact: Get "https://repo.example.com/hello.tgz": dial tcp 203.0.113.7:443: i/o timeout',
      "The artifact's download: no answer in time from 203.0.113.7:443: the service is too slow, or the network does not reach it.",
    ],
    [
      "timeout",
      'health check http://web:8080/h: Get "http://web:8080/h": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
      "The health check http://web:8080/h: no answer in time: the service is too slow, or the network does not reach it.",
    ],
    ["steptimeout", "timed out after 5m0s", "The step ran longer than its time limit (5m0s) and was stopped."],
    [
      "dns",
      'download artifact: Get "https://repo.exmaple.com/a.tgz": dial tcp: lookup repo.exmaple.com on 127.0.0.53:53: no such host',
      "The artifact's download: the host name repo.exmaple.com could not be resolved (DNS): check its spelling and the resolver.",
    ],
    ["http", "health check http://127.0.0.1:9/missing: HTTP 404", "The health check http://127.0.0.1:9/missing: answered HTTP 404 Not Found: nothing is there at that address."],
    ["http", "open change ticket: HTTP 503", "Opening the change ticket: answered HTTP 503 Service Unavailable: a failure on its side."],
    ["http", "open change ticket: HTTP 403", "Opening the change ticket: answered HTTP 403 Forbidden: access was refused; check the credentials it is called with."],
    [
      "permission",
      "target /srv/hello: create releases directory: mkdir /srv/hello/releases: permission denied",
      "Target /srv/hello: permission denied on /srv/hello/releases: the worker's user may not read or write there.",
    ],
    ["notfound", "open artifact: open /var/lib/manent/hello.tgz: no such file or directory", "The artifact: /var/lib/manent/hello.tgz does not exist."],
    [
      "internal",
      "internal error (reference 9f86d081 in the worker log)",
      "An internal failure of manent, not of the deploy's own work: give the reference 9f86d081 to an administrator (it is in the worker log).",
    ],
    [
      "tls",
      'download artifact: Get "https://repo:8443/a.tgz": tls: failed to verify certificate: x509: certificate signed by unknown authority',
      "The artifact's download: the secure connection failed: its certificate could not be verified.",
    ],
    [
      "blocked",
      'health check http://169.254.169.254/: Get "http://169.254.169.254/": destination address refused: 169.254.169.254',
      "The health check http://169.254.169.254/: manent's outbound rules refuse this address (link-local and cloud metadata addresses are never called).",
    ],
    ["network", 'health check http://web/h: Get "http://web/h": read tcp 10.0.0.2:51234->10.0.0.5:80: read: connection reset by peer', "The health check http://web/h: the network connection broke before an answer."],
  ] as const)("%s: %s", (kind, raw, title) => {
    const f = describeFailure(raw);
    expect(f.kind).toBe(kind);
    expect(f.title).toBe(title);
    expect(f.detail).toBe(raw);
  });

  it("names the step a deploy failed in, before its error in words", () => {
    const raw = "step post-test failed: health check http://127.0.0.1:9/missing: HTTP 404";
    expect(describeFailure(raw)).toEqual({
      kind: "http",
      title: "Step post-test failed: the health check http://127.0.0.1:9/missing: answered HTTP 404 Not Found: nothing is there at that address.",
      detail: raw,
    });
    expect(describeFailure("step deploy failed: internal error (reference 0a1b2c3d in the worker log)").title).toBe(
      "Step deploy failed: an internal failure of manent, not of the deploy's own work: give the reference 0a1b2c3d to an administrator (it is in the worker log).",
    );
    const own = "step qa failed: the artifact's sha256 differs from the pinned one";
    expect(describeFailure(own)).toEqual({ kind: "other", title: own, detail: null });
  });

  it("shows manent's own sentences as they are, with nothing to disclose", () => {
    const raw = "release 1.0.0 already exists with other content (sha256 9f86d081884c); give the new artifact a new version";
    expect(describeFailure(raw)).toEqual({ kind: "other", title: raw, detail: null });
  });

  it("never puts Go's text in the sentence", () => {
    const f = describeFailure('health check http://10.0.0.5/h: Get "http://10.0.0.5/h": dial tcp 10.0.0.5:80: connect: connection refused');
    expect(f.title).not.toMatch(/dial tcp|connect:|Get "/);
  });
});

describe("FailureText", () => {
  it("says what failed in words and keeps the error behind Details", async () => {
    const raw = 'health check http://10.0.0.5:8080/healthz: Get "http://10.0.0.5:8080/healthz": dial tcp 10.0.0.5:8080: connect: connection refused';
    render(<FailureText error={raw} label="Failed:" />);
    expect(screen.getByText(/the connection to 10.0.0.5:8080 was refused/)).toHaveTextContent(/^Failed: The health check/);
    const details = screen.getByText("Details").closest("details")!;
    expect(details).not.toHaveAttribute("open");
    await userEvent.click(screen.getByText("Details"));
    expect(details).toHaveAttribute("open");
    expect(details).toHaveTextContent(raw);
  });

  it("in a list, gives the sentence alone", () => {
    render(<FailureText error="open change ticket: HTTP 503" brief />);
    expect(screen.getByText("Opening the change ticket: answered HTTP 503 Service Unavailable: a failure on its side.")).toBeInTheDocument();
    expect(screen.queryByText("Details")).toBeNull();
  });
});
