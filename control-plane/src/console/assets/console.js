// Enclave operator console: live updates over one EventSource, forms sent with fetch, live
// durations. No framework. Markup arrives already escaped by the server; this script never builds
// HTML from data itself.
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute("content") ?? "";
  const openCards = new Set();
  const baseTitle = document.title;

  function formatDuration(ms) {
    const s = Math.max(0, ms) / 1000;
    if (s < 60) return s.toFixed(1) + " s";
    const m = Math.floor(s / 60);
    return m < 60 ? m + " min " + Math.round(s - m * 60) + " s" : Math.floor(m / 60) + " h " + (m % 60) + " min";
  }

  function tick() {
    const now = Date.now();
    for (const el of document.querySelectorAll("[data-since]")) el.textContent = formatDuration(now - Number(el.dataset.since));
    for (const el of document.querySelectorAll("[data-expires]")) {
      const left = Number(el.dataset.expires) - now;
      el.textContent = left > 0 ? "in " + formatDuration(left) : "now";
    }
  }

  function updateCount() {
    for (const el of document.querySelectorAll("[data-open-count]")) {
      el.textContent = String(openCards.size);
      el.dataset.openCount = String(openCards.size);
    }
    document.title = (openCards.size ? "(" + openCards.size + ") " : "") + baseTitle;
  }

  function listsFor(space) {
    return [...document.querySelectorAll("[data-cards]")].filter((l) => !l.dataset.cardsSpace || l.dataset.cardsSpace === space);
  }

  function addCard(card) {
    openCards.add(card.key);
    for (const list of listsFor(card.space)) {
      if ([...list.children].some((c) => c.dataset.cardKey === card.key)) continue;
      const returnTo = list.dataset.returnTo || "/";
      list.insertAdjacentHTML("beforeend", card.html);
      const form = list.lastElementChild?.querySelector('input[name="return_to"]');
      if (form) form.value = returnTo;
    }
  }

  function removeCard(key) {
    openCards.delete(key);
    for (const el of document.querySelectorAll("[data-card-key]")) if (el.dataset.cardKey === key) el.remove();
  }

  // Fragments the server renders again on change ([data-live]) or once on load ([data-fragment]).
  const pending = new Map();
  async function refresh(el) {
    const src = el.dataset.live || el.dataset.fragment;
    if (!src) return;
    try {
      // Fragments answer HTML; an error answers JSON ({error}) because JSON is accepted too.
      const res = await fetch(src, { headers: { Accept: "text/html, application/json;q=0.9" }, credentials: "same-origin" });
      if (!res.ok) throw new Error((await res.json().catch(() => ({}))).error || "the console answered " + res.status);
      el.innerHTML = await res.text();
      el.removeAttribute("aria-busy");
      syncEnclosureState();
      tick();
      if (el.previousElementSibling?.classList.contains("fragment-error")) el.previousElementSibling.remove();
    } catch (err) {
      // Shown as text: the server's message, never markup.
      let note = el.previousElementSibling;
      if (!note?.classList.contains("fragment-error")) {
        note = document.createElement("p");
        note.className = "fragment-error warn";
        el.before(note);
      }
      note.textContent = "Could not refresh: " + err.message;
    }
  }
  function scheduleRefresh(delay) {
    for (const el of document.querySelectorAll("[data-live]")) {
      if (pending.has(el)) continue;
      pending.set(
        el,
        setTimeout(() => {
          pending.delete(el);
          void refresh(el);
        }, delay),
      );
    }
  }
  function syncEnclosureState() {
    const root = document.querySelector("[data-enclosure-state]");
    if (root) document.body.dataset.enclosure = root.dataset.enclosureState;
  }

  function connect() {
    const url = document.body.dataset.events;
    if (!url || !window.EventSource) return;
    const indicator = document.querySelector("[data-live-indicator]");
    const es = new EventSource(url);
    es.addEventListener("open", () => {
      if (indicator) {
        indicator.textContent = "live";
        indicator.dataset.state = "live";
      }
    });
    es.addEventListener("error", () => {
      if (indicator) {
        indicator.textContent = "reconnecting…";
        indicator.dataset.state = "down";
      }
    });
    es.addEventListener("cards", (e) => {
      const { cards } = JSON.parse(e.data);
      const keys = new Set(cards.map((c) => c.key));
      for (const key of [...openCards]) if (!keys.has(key)) removeCard(key);
      for (const el of document.querySelectorAll("[data-card-key]")) if (!keys.has(el.dataset.cardKey)) el.remove();
      for (const c of cards) addCard(c);
      updateCount();
      tick();
    });
    es.addEventListener("card-opened", (e) => {
      addCard(JSON.parse(e.data));
      updateCount();
      tick();
    });
    es.addEventListener("card-closed", (e) => {
      removeCard(JSON.parse(e.data).key);
      updateCount();
    });
    es.addEventListener("audit", (e) => {
      const ev = JSON.parse(e.data);
      const rows = document.querySelector("[data-audit-rows]");
      if (rows && ev.rowHtml && !rows.querySelector('[data-seq="' + ev.seq + '"]')) {
        rows.insertAdjacentHTML("afterbegin", ev.rowHtml);
        document.querySelector("[data-audit-empty]")?.remove();
      }
      scheduleRefresh(250);
    });
    es.addEventListener("call", (e) => {
      const ev = JSON.parse(e.data);
      for (const body of document.querySelectorAll("[data-calls]")) {
        if (body.dataset.calls !== ev.conversationId) continue;
        // A finished call replaces its running row; a row already shown (rendered with the page) stays.
        const running = [...body.children].find((r) => r.dataset.callKey === ev.key);
        if (running) {
          running.outerHTML = ev.rowHtml;
          continue;
        }
        if (ev.seq && body.querySelector('[data-call-seq="' + ev.seq + '"]')) continue;
        body.insertAdjacentHTML("afterbegin", ev.rowHtml);
        tick();
        const max = Number(body.dataset.callsMax) || 20;
        while (body.children.length > max) body.lastElementChild.remove();
        body.closest("section")?.querySelector("[data-calls-empty]")?.remove();
      }
    });
    es.addEventListener("changed", () => scheduleRefresh(100));
  }

  async function submit(form, submitter) {
    if (submitter?.dataset.confirm && !window.confirm(submitter.dataset.confirm)) return;
    const error = form.querySelector(".form-error");
    // Read the form before disabling its buttons: a disabled submitter is left out of the data.
    const body = new URLSearchParams(new FormData(form, submitter));
    const buttons = [...form.querySelectorAll("button")];
    const label = submitter?.textContent;
    buttons.forEach((b) => (b.disabled = true));
    if (submitter?.dataset.busy) submitter.textContent = submitter.dataset.busy;
    form.setAttribute("aria-busy", "true");
    try {
      const res = await fetch(form.action, {
        method: "POST",
        body,
        credentials: "same-origin",
        headers: { Accept: "application/json", "X-CSRF-Token": csrf },
      });
      const reply = await res.json().catch(() => ({ error: "the console answered " + res.status }));
      if (!res.ok || reply.error) throw new Error(reply.error || "the console answered " + res.status);
      if (error) error.hidden = true;
      // Gone (a deleted conversation): its page is too.
      if (reply.navigate) {
        window.location.assign(reply.navigate);
        return;
      }
      if (form.dataset.async === "card") {
        const card = form.closest("[data-card-key]");
        if (card) removeCard(card.dataset.cardKey);
        updateCount();
      } else {
        // A form that started something names the fragment to load now that it runs.
        const target = form.dataset.fragmentTarget ? document.getElementById(form.dataset.fragmentTarget) : null;
        if (target && form.dataset.fragmentSrc) {
          target.dataset.fragment = form.dataset.fragmentSrc;
          target.setAttribute("aria-busy", "true");
        }
        await Promise.all([...document.querySelectorAll("[data-live]")].map(refresh));
        for (const el of document.querySelectorAll("[data-fragment]")) void refresh(el);
      }
    } catch (err) {
      if (error) {
        error.textContent = err.message;
        error.hidden = false;
      }
    } finally {
      form.removeAttribute("aria-busy");
      buttons.forEach((b) => (b.disabled = false));
      if (submitter && label !== undefined) submitter.textContent = label;
    }
  }

  document.addEventListener("submit", (e) => {
    const form = e.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.async) return;
    e.preventDefault();
    void submit(form, e.submitter);
  });

  for (const el of document.querySelectorAll("[data-card-key]")) openCards.add(el.dataset.cardKey);
  updateCount();
  syncEnclosureState();
  tick();
  setInterval(tick, 1000);
  // Runs open and close without an audit event: look again every few seconds while visible.
  setInterval(() => {
    if (document.visibilityState === "visible") scheduleRefresh(0);
  }, 5000);
  for (const el of document.querySelectorAll("[data-fragment]")) void refresh(el);
  connect();
})();
