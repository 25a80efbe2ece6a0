// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Binary compatibility with librtpi 1.0, C++: classes shaped as librtpi
 * 1.0's C++ header shapes them (one object each, built by the constexpr
 * initializer in a constexpr constructor, so a static instance is
 * constant-initialized and never calls an init function; errors thrown as
 * std::system_error), over abi-librtpi10.h, run on this library.
 */
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include "abi-librtpi10.h"
#include "tap.h"

namespace abi10 {

class mutex {
public:
	constexpr mutex() noexcept : m_(PI_MUTEX_INIT(0)) {}
	~mutex() { pi_mutex_destroy(&m_); }
	mutex(const mutex &) = delete;
	mutex &operator=(const mutex &) = delete;
	void lock()
	{
		int e = pi_mutex_lock(&m_);

		if (e)
			throw std::system_error(e, std::generic_category(), "lock");
	}
	bool try_lock() { return pi_mutex_trylock(&m_) == 0; }
	void unlock() { pi_mutex_unlock(&m_); }
	pi_mutex *native_handle() { return &m_; }

private:
	pi_mutex m_;
};

class condition_variable {
public:
	constexpr condition_variable() noexcept : c_(PI_COND_INIT(0)) {}
	~condition_variable() { pi_cond_destroy(&c_); }
	condition_variable(const condition_variable &) = delete;
	condition_variable &operator=(const condition_variable &) = delete;
	void notify_one(std::unique_lock<mutex> &lk)
	{
		check_(pi_cond_signal(&c_, lk.mutex()->native_handle()), "signal");
	}
	void notify_all(std::unique_lock<mutex> &lk)
	{
		check_(pi_cond_broadcast(&c_, lk.mutex()->native_handle()), "broadcast");
	}
	void wait(std::unique_lock<mutex> &lk)
	{
		check_(pi_cond_wait(&c_, lk.mutex()->native_handle()), "wait");
	}
	template <class P> void wait(std::unique_lock<mutex> &lk, P pred)
	{
		while (!pred())
			wait(lk);
	}
	/* CLOCK_MONOTONIC, as steady_clock */
	bool wait_ms(std::unique_lock<mutex> &lk, long ms)
	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += ms / 1000;
		ts.tv_nsec += (ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		int e = pi_cond_timedwait(&c_, lk.mutex()->native_handle(), &ts);

		if (e == ETIMEDOUT)
			return false;
		check_(e, "timedwait");
		return true;
	}

private:
	static void check_(int e, const char *what)
	{
		if (e)
			throw std::system_error(e, std::generic_category(), what);
	}
	pi_cond c_;
};

} // namespace abi10

static_assert(sizeof(abi10::mutex) == 64 && alignof(abi10::mutex) == 64,
	      "librtpi 1.0: rtpi::mutex is one pi_mutex");
static_assert(sizeof(abi10::condition_variable) == 128 &&
	      alignof(abi10::condition_variable) == 64,
	      "librtpi 1.0: rtpi::condition_variable is one pi_cond");

/* constant-initialized: no constructor runs, the bytes are in .data */
static abi10::mutex gm;
static abi10::condition_variable gcv;

/* producer/consumer through a one-slot queue; returns items consumed */
static long pass_items(abi10::mutex &m, abi10::condition_variable &cv, long n, int consumers)
{
	long slot = 0, got = 0;
	bool full = false, end = false;
	std::vector<std::thread> t;

	for (int i = 0; i < consumers; i++)
		t.emplace_back([&] {
			std::unique_lock<abi10::mutex> lk(m);
			for (;;) {
				cv.wait(lk, [&] { return full || end; });
				if (full) {
					got += slot > 0;
					full = false;
					cv.notify_all(lk);
				} else {
					return;
				}
			}
		});
	for (long i = 1; i <= n; i++) {
		std::unique_lock<abi10::mutex> lk(m);
		cv.wait(lk, [&] { return !full; });
		slot = i;
		full = true;
		cv.notify_one(lk);
		cv.notify_all(lk);	/* the producer may be the one woken */
	}
	{
		std::unique_lock<abi10::mutex> lk(m);
		cv.wait(lk, [&] { return !full; });
		end = true;
		cv.notify_all(lk);
	}
	for (auto &x : t)
		x.join();
	return got;
}

int main()
{
	printf("# librtpi 1.0 ABI, C++: constexpr-constructed objects run on this library\n");
	try {
		{
			std::lock_guard<abi10::mutex> g(gm);
			check(!gm.try_lock(), "static constexpr mutex: lock_guard locks it, try_lock fails");
		}
		{
			std::unique_lock<abi10::mutex> lk(gm);
			bool woken = gcv.wait_ms(lk, 20);

			check(!woken, "static constexpr condition_variable: a 20 ms timed wait times out");
		}
		long got = pass_items(gm, gcv, 2000, 3);

		check(got == 2000, "static objects: 2000 items through a one-slot queue, 3 consumers (%ld)", got);
		alignas(64) unsigned char mb[sizeof(abi10::mutex)], cb[sizeof(abi10::condition_variable)];

		/* automatic objects built in dirty memory */
		std::memset(mb, 0xa5, sizeof(mb));
		std::memset(cb, 0xa5, sizeof(cb));
		auto *m = new (mb) abi10::mutex;
		auto *cv = new (cb) abi10::condition_variable;

		got = pass_items(*m, *cv, 1000, 2);
		check(got == 1000, "constexpr-constructed objects in dirty memory: 1000 items, 2 consumers (%ld)", got);
		cv->~condition_variable();
		m->~mutex();
	} catch (const std::system_error &e) {
		check(0, "std::system_error: %s (%d)", e.what(), e.code().value());
	}
	return tap_exit();
}
