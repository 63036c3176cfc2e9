// GPFS's token server: where the byte-range tokens of a shared file are asked for, one request
// after another.
//
// IBM Spectrum Scale documentation ("File system manager": token management; "Using multiple
// token servers"): a node that needs a token it does not hold sends a request to the token
// management server, which grants it or answers with the nodes holding conflicting tokens; the
// requesting node then has those revoked itself (each holder flushes its dirty data of the range
// and gives it up). Token service is spread over the manager nodes by lockable object, so the
// byte-range tokens of one file are all kept by one token server. Schmuck and Haskin (FAST 2002,
// section 3.2): byte-range tokens are rounded to blocks, so nodes writing different records of
// one block conflict (extent_locks.hpp counts those revocations).
//
// What follows for the model: every revocation of a shared GPFS file is one request at the
// file's token server, which serves them one after another at `token_ops_per_s`: a phase's
// writers wait at least for its requests together (`busy_s`), and a writer that needs a
// revocation waits for its own request (`request_s`) and the holder's flush of the range (one
// request at the target, `rpc_overhead_s`). That replaces, on GPFS, the two terms of a Lustre
// revocation (extent_locks.hpp): the callback round trip of an OST's lock server
// (`lock_conflict_s`), and the revocations of one object following one another at that server;
// GPFS has no lock server per disk, and its requester revokes the holders itself.
#pragma once

#include <cstdint>

namespace iosim {

class TokenServer {
public:
    // `requests_per_s` <= 0: the platform gives no token server (its revocations then follow
    // one another per object, as Lustre's do).
    explicit TokenServer(double requests_per_s) : request_s_(requests_per_s > 0 ? 1.0 / requests_per_s : 0.0) {}
    bool serves() const { return request_s_ > 0; }
    double request_s() const { return request_s_; }
    void request() { requests_++; }
    // The phase's time at the server: its requests, one after another.
    double busy_s() const { return static_cast<double>(requests_) * request_s_; }
    void end_phase() { requests_ = 0; }

private:
    double request_s_;
    uint64_t requests_ = 0;
};

}  // namespace iosim
