// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rtpi/condition_variable.hpp - rtpi::condition_variable, a
 * priority-inheriting std::condition_variable for rtpi::mutex
 * (header-only, over rtpi.h; C++11 or later).
 *
 * Waits take std::unique_lock<rtpi::mutex>.  The condvar measures time on
 * CLOCK_MONOTONIC: wait_until on std::chrono::steady_clock is exact; on any
 * other clock (system_clock included) the remaining time is converted and
 * the result is decided by that clock, as libstdc++ does.  The waits are
 * cancellation points unless the library was built with CANCEL=0; a
 * cancelled wait unwinds with the mutex locked, so a unique_lock releases
 * it.  notify_one/notify_all may be called with or without the mutex held;
 * notify_one(lock)/notify_all(lock) (librtpi's C++ calls) name the mutex.
 * See rtpi(7).
 */
#ifndef RTPI_CONDITION_VARIABLE_HPP
#define RTPI_CONDITION_VARIABLE_HPP

#include <chrono>
#include <condition_variable>	/* std::cv_status */
#include <mutex>		/* std::unique_lock */
#include <system_error>

#include <rtpi.h>
#include <rtpi/mutex.hpp>

namespace rtpi {

class condition_variable {
public:
	typedef pi_cond_t *native_handle_type;

	constexpr condition_variable() noexcept : c_(PI_COND_INIT(0)) {}
	~condition_variable() { pi_cond_destroy(&c_); }
	condition_variable(const condition_variable &) = delete;
	condition_variable &operator=(const condition_variable &) = delete;

	/* pi_cond_signal/broadcast name the mutex: the one the waiters gave
	 * is found in the condvar (nobody ever waited: nothing to do) */
	void notify_one() noexcept
	{
		pi_mutex_t *m = waiters_mutex();

		if (m)
			pi_cond_signal(&c_, m);
	}
	void notify_all() noexcept
	{
		pi_mutex_t *m = waiters_mutex();

		if (m)
			pi_cond_broadcast(&c_, m);
	}
	/* as librtpi's C++ API: name the mutex by a lock (need not own it) */
	void notify_one(std::unique_lock<mutex> &lk) noexcept
	{
		pi_cond_signal(&c_, lk.mutex()->native_handle());
	}
	void notify_all(std::unique_lock<mutex> &lk) noexcept
	{
		pi_cond_broadcast(&c_, lk.mutex()->native_handle());
	}

	void wait(std::unique_lock<mutex> &lk)
	{
		check(pi_cond_wait(&c_, enter(lk)), "pi_cond_wait");
	}
	template <class Predicate>
	void wait(std::unique_lock<mutex> &lk, Predicate pred)
	{
		while (!pred())
			wait(lk);
	}

	template <class Duration>
	std::cv_status
	wait_until(std::unique_lock<mutex> &lk,
		   const std::chrono::time_point<std::chrono::steady_clock, Duration> &t)
	{
		return wait_steady(lk, t.time_since_epoch());
	}
	/* any other clock: wait the remaining time measured on that clock */
	template <class Clock, class Duration>
	std::cv_status
	wait_until(std::unique_lock<mutex> &lk,
		   const std::chrono::time_point<Clock, Duration> &t)
	{
		typename Clock::time_point now = Clock::now();

		if (t <= now)
			return std::cv_status::timeout;
		wait_steady(lk, std::chrono::steady_clock::now().time_since_epoch() +
				ceil_ns(t - now));
		return Clock::now() < t ? std::cv_status::no_timeout
					: std::cv_status::timeout;
	}
	template <class Clock, class Duration, class Predicate>
	bool wait_until(std::unique_lock<mutex> &lk,
			const std::chrono::time_point<Clock, Duration> &t,
			Predicate pred)
	{
		while (!pred())
			if (wait_until(lk, t) == std::cv_status::timeout)
				return pred();
		return true;
	}

	template <class Rep, class Period>
	std::cv_status wait_for(std::unique_lock<mutex> &lk,
				const std::chrono::duration<Rep, Period> &d)
	{
		return wait_steady(lk, deadline(d));
	}
	template <class Rep, class Period, class Predicate>
	bool wait_for(std::unique_lock<mutex> &lk,
		      const std::chrono::duration<Rep, Period> &d, Predicate pred)
	{
		std::chrono::nanoseconds end = deadline(d);

		while (!pred())
			if (wait_steady(lk, end) == std::cv_status::timeout)
				return pred();
		return true;
	}

	native_handle_type native_handle() noexcept { return &c_; }

private:
	typedef std::chrono::nanoseconds ns;

	static void check(int e, const char *what)
	{
		if (e && e != ETIMEDOUT)
			throw std::system_error(e, std::generic_category(), what);
	}

	static pi_mutex_t *enter(std::unique_lock<mutex> &lk)
	{
		return lk.mutex()->native_handle();
	}

	/* mutex_off: the waiters' mutex relative to the condvar, written
	 * (atomically) by every wait */
	pi_mutex_t *waiters_mutex() noexcept
	{
		int64_t off = __atomic_load_n(&c_.mutex_off, __ATOMIC_RELAXED);

		return off ? (pi_mutex_t *)(void *)((char *)&c_ + off) : nullptr;
	}

	/* a duration in whole nanoseconds, rounded up, saturated */
	template <class Rep, class Period>
	static ns ceil_ns(const std::chrono::duration<Rep, Period> &d)
	{
		typedef std::chrono::duration<long double> ld;

		if (ld(d) >= ld(ns::max()))
			return ns::max();
		ns r = std::chrono::duration_cast<ns>(d);

		return r < d ? r + ns(1) : r;
	}

	/* steady_clock time (since its epoch) after d, saturated */
	template <class Rep, class Period>
	static ns deadline(const std::chrono::duration<Rep, Period> &d)
	{
		ns now = std::chrono::steady_clock::now().time_since_epoch();

		if (d <= d.zero())
			return now;
		ns r = ceil_ns(d);

		return r >= ns::max() - now ? ns::max() : now + r;
	}

	/* wait until steady_clock (CLOCK_MONOTONIC on Linux) reads t */
	template <class Duration>
	std::cv_status wait_steady(std::unique_lock<mutex> &lk, const Duration &t)
	{
		ns n = ceil_ns(t);
		struct timespec ts;

		if (n < ns::zero())
			n = ns::zero();	/* in the past: time-out at once */
		ts.tv_sec = (time_t)(n.count() / 1000000000);
		ts.tv_nsec = (long)(n.count() % 1000000000);
		int e = pi_cond_timedwait(&c_, enter(lk), &ts);

		check(e, "pi_cond_timedwait");
		if (e == ETIMEDOUT ||
		    std::chrono::steady_clock::now().time_since_epoch() >= t)
			return std::cv_status::timeout;
		return std::cv_status::no_timeout;
	}

	pi_cond_t c_;	/* the only member: sizeof as the native type */
};

} // namespace rtpi

#endif /* RTPI_CONDITION_VARIABLE_HPP */
