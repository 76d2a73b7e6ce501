// Browser side of report.html (a classic script, inlined after the chart library and the data tag).
// Everything dynamic is written with textContent, never innerHTML. When all charts are drawn it sets
// document.body.dataset.status = 'ok' and data-points = the number of points drawn; any error, here or
// later (window.onerror, unhandled rejections), sets 'error: <message>' instead, for headless checks.
(function () {
  'use strict';
  var body = document.body;

  function fail(message) {
    body.dataset.status = 'error: ' + message;
    var box = document.getElementById('report-error');
    if (box) {
      box.textContent = 'This report could not be drawn: ' + message;
      box.hidden = false;
    }
  }

  window.onerror = function (message, _source, _line, _column, error) {
    fail(String((error && error.message) || message));
  };
  window.addEventListener('unhandledrejection', function (event) {
    fail(String(event.reason));
  });

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function pairs(series) {
    var out = new Array(series.t.length);
    for (var i = 0; i < series.t.length; i++) out[i] = { time: series.t[i], value: series.v[i] };
    return out;
  }

  var MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

  function two(n) {
    return n < 10 ? '0' + n : String(n);
  }

  // Every time is shown in UTC, whatever the viewer's time zone, so the page reads the same anywhere.
  function fullTime(seconds) {
    var d = new Date(seconds * 1000);
    return (
      d.getUTCFullYear() +
      '-' +
      two(d.getUTCMonth() + 1) +
      '-' +
      two(d.getUTCDate()) +
      ' ' +
      two(d.getUTCHours()) +
      ':' +
      two(d.getUTCMinutes()) +
      ':' +
      two(d.getUTCSeconds()) +
      ' UTC'
    );
  }

  /** Axis labels by tick kind (lightweight-charts TickMarkType: 0 year, 1 month, 2 day, 3 time, 4 time with seconds). */
  function tickFormatter(spanSeconds) {
    return function (time, kind) {
      var d = new Date(time * 1000);
      var hm = two(d.getUTCHours()) + ':' + two(d.getUTCMinutes());
      switch (kind) {
        case 0:
          return String(d.getUTCFullYear());
        case 1:
          return MONTHS[d.getUTCMonth()] + ' ' + d.getUTCFullYear();
        case 2:
          return MONTHS[d.getUTCMonth()] + ' ' + d.getUTCDate();
        case 4:
          return hm + ':' + two(d.getUTCSeconds());
        default:
          // Over a few hours, minute marks keep their seconds so they never read as hh:mm:ss neighbours.
          if (spanSeconds < 3 * 3600) return hm + ':' + two(d.getUTCSeconds());
          // Over several days a bare hh:mm could belong to any day: name the day.
          return spanSeconds > 3 * 86400 ? MONTHS[d.getUTCMonth()] + ' ' + d.getUTCDate() + ' ' + hm : hm;
      }
    };
  }

  function groupDigits(text) {
    var neg = text.charAt(0) === '-';
    if (neg) text = text.slice(1);
    var dot = text.indexOf('.');
    var int = dot < 0 ? text : text.slice(0, dot);
    var frac = dot < 0 ? '' : text.slice(dot);
    return (neg ? '-' : '') + int.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + frac;
  }

  function moneyFormat(x) {
    return groupDigits((Math.abs(x) < 0.005 ? 0 : x).toFixed(2));
  }

  function percentFormat(x) {
    return (Math.abs(x) < 0.005 ? 0 : x).toFixed(2) + ' %';
  }

  function renderRun(data) {
    var list = document.getElementById('report-run');
    var h = data.header;
    var rows = [
      ['Data', h.data],
      ['Span', h.from + ' to ' + h.to + ' (' + h.span + ')'],
      ['Ticker snapshots', String(data.run.tickers)],
    ];
    h.strategies.forEach(function (s) {
      rows.push(['Strategy ' + s.id, s.file + ' ' + s.params]);
    });
    rows.forEach(function (row) {
      list.appendChild(el('dt', '', row[0]));
      list.appendChild(el('dd', '', row[1]));
    });
  }

  function tone(node, sign) {
    if (sign > 0) node.classList.add('pos');
    else if (sign < 0) node.classList.add('neg');
    return node;
  }

  function renderHeadlines(list) {
    var box = document.getElementById('report-kpis');
    list.forEach(function (k) {
      var tile = el('div', 'kpi');
      tile.appendChild(el('div', 'label', k[0]));
      tile.appendChild(tone(el('div', 'value', k[1]), k[2]));
      box.appendChild(tile);
    });
  }

  function renderSummary(rows) {
    var table = document.getElementById('report-summary');
    rows.forEach(function (row) {
      var tr = el('tr');
      tr.appendChild(el('th', '', row[0]));
      tr.appendChild(el('td', '', row[1]));
      table.appendChild(tr);
    });
  }

  function renderReturns(returns) {
    document.getElementById('report-returns-title').textContent =
      returns.period === 'month' ? 'Monthly returns' : 'Daily returns';
    var table = document.getElementById('report-returns');
    var head = el('tr');
    head.appendChild(el('th', '', returns.period === 'month' ? 'Month (UTC)' : 'Day (UTC)'));
    head.appendChild(el('th', 'num', 'Return'));
    head.appendChild(el('th', 'num', 'Closing equity'));
    table.appendChild(head);
    returns.rows.forEach(function (r) {
      var tr = el('tr');
      tr.appendChild(el('td', '', r[0]));
      tr.appendChild(tone(el('td', 'num', r[1]), r[2]));
      tr.appendChild(el('td', 'num', r[3]));
      table.appendChild(tr);
    });
    if (returns.rows.length === 0)
      table.appendChild(el('tr')).appendChild(el('td', 'note', 'No equity samples.'));
  }

  function renderBreakdown(columns, rows) {
    var table = document.getElementById('report-breakdown');
    var head = el('tr');
    columns.forEach(function (c, i) {
      head.appendChild(el('th', i >= 2 ? 'num' : '', c));
    });
    table.appendChild(head);
    rows.forEach(function (r) {
      var tr = el('tr');
      r.forEach(function (text, i) {
        tr.appendChild(el('td', i >= 2 ? 'num' : '', text));
      });
      table.appendChild(tr);
    });
  }

  var NUMERIC_FROM = 6; // columns from "Duration" on are figures, right-aligned

  function renderTrades(columns, trades, focus) {
    var table = document.getElementById('report-trades');
    var filter = document.getElementById('report-trades-filter');
    var count = document.getElementById('report-trades-count');
    var thead = el('thead');
    var headRow = el('tr');
    var tbody = el('tbody');
    var sortColumn = 0;
    var ascending = true;
    var rows = trades.map(function (t) {
      var tr = el('tr', 'trade');
      t.cells.forEach(function (text, i) {
        var td = el('td', i >= NUMERIC_FROM && i < columns.length - 1 ? 'num' : '', text);
        if (i === 12) tone(td, t.tone);
        tr.appendChild(td);
      });
      tr.addEventListener('click', function () {
        rows.forEach(function (r) {
          r.tr.classList.remove('selected');
        });
        tr.classList.add('selected');
        focus(t);
      });
      return { tr: tr, trade: t, text: t.cells.join(' ').toLowerCase() };
    });
    columns.forEach(function (name, i) {
      var th = el('th', i >= NUMERIC_FROM && i < columns.length - 1 ? 'num' : '', name);
      th.title = 'Sort by ' + name;
      th.addEventListener('click', function () {
        ascending = sortColumn === i ? !ascending : true;
        sortColumn = i;
        draw();
      });
      headRow.appendChild(th);
    });
    thead.appendChild(headRow);
    table.appendChild(thead);
    table.appendChild(tbody);

    function compare(a, b) {
      var x = a.trade.keys[sortColumn];
      var y = b.trade.keys[sortColumn];
      if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
      var c = x < y ? -1 : x > y ? 1 : 0;
      return ascending ? c : -c;
    }

    function draw() {
      var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = rows
        .filter(function (r) {
          return words.every(function (w) {
            return r.text.indexOf(w) >= 0;
          });
        })
        .sort(function (a, b) {
          return compare(a, b) || a.trade.keys[0] - b.trade.keys[0];
        });
      while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
      shown.forEach(function (r) {
        tbody.appendChild(r.tr);
      });
      Array.prototype.forEach.call(headRow.children, function (th, i) {
        th.textContent = columns[i] + (i === sortColumn ? (ascending ? ' ▲' : ' ▼') : '');
      });
      count.textContent =
        shown.length === rows.length
          ? rows.length + ' trades'
          : shown.length + ' of ' + rows.length + ' trades';
    }
    filter.addEventListener('input', draw);
    draw();
    if (rows.length === 0)
      document.getElementById('report-trades-box').appendChild(el('p', 'note', 'No trades.'));
    return rows.length;
  }

  function section(title, note) {
    var box = el('section', 'chart-section');
    box.appendChild(el('h2', '', title));
    var p = el('p', 'note');
    if (note) p.textContent = note;
    box.appendChild(p);
    var holder = el('div', 'chart');
    box.appendChild(holder);
    document.getElementById('report-charts').appendChild(box);
    return holder;
  }

  function chart(holder, first, spanSeconds, priceFormatter) {
    var LWC = window.LightweightCharts;
    var localization = { timeFormatter: fullTime };
    if (priceFormatter) localization.priceFormatter = priceFormatter;
    return LWC.createChart(holder, {
      autoSize: true,
      layout: { attributionLogo: first, background: { color: '#ffffff' }, textColor: '#222222' },
      localization: localization,
      // Let fitContent show the whole run however many points a series has.
      timeScale: {
        timeVisible: true,
        secondsVisible: spanSeconds < 3 * 3600,
        minBarSpacing: 0.01,
        tickMarkFormatter: tickFormatter(spanSeconds),
      },
      rightPriceScale: { borderVisible: false },
      grid: { vertLines: { color: '#eeeeee' }, horzLines: { color: '#eeeeee' } },
    });
  }

  function spanOf(series) {
    return series.t.length > 1 ? series.t[series.t.length - 1] - series.t[0] : 0;
  }

  function main() {
    var LWC = window.LightweightCharts;
    if (!LWC || typeof LWC.createChart !== 'function') throw new Error('the chart library did not load');
    var data = JSON.parse(document.getElementById('report-data').textContent);
    renderRun(data);
    renderHeadlines(data.headlines);
    renderSummary(data.summaryRows);
    renderReturns(data.returns);
    renderBreakdown(data.breakdownColumns, data.breakdown);
    var span = data.run.lastTickTime / 1000 - data.run.firstTickTime / 1000;

    var points = 0;
    var first = true;
    var priceCharts = {};
    data.charts.symbols.forEach(function (s) {
      var note = s.fills + ' fills';
      if (s.markers.length < s.fills) note += ' (' + s.markers.length + ' marked)';
      note += '; green ▲ buys (open long, close short), red ▼ sells (open short, close long)';
      var plans = s.markers.filter(function (m) {
        return m.plan === true;
      }).length;
      // Fills of triggered plan orders (stops, targets) are drawn apart, as amber squares.
      note += plans > 0 ? '; amber ■ fills of triggered plan orders (' + plans + ').' : '.';
      var holder = section(s.symbol + ' last price', note);
      var c = chart(holder, first, Math.max(span, spanOf(s.line)));
      first = false;
      var minMove = Math.pow(10, -s.precision);
      var line = c.addSeries(LWC.LineSeries, {
        color: '#2962ff',
        lineWidth: 1,
        priceFormat: {
          type: 'custom',
          minMove: minMove,
          formatter: function (x) {
            return groupDigits(x.toFixed(s.precision));
          },
        },
      });
      line.setData(pairs(s.line));
      points += s.line.t.length;
      var markers = s.markers.map(function (m) {
        return {
          time: m.t,
          position: 'atPriceMiddle',
          price: m.price,
          shape: m.plan ? 'square' : m.buy ? 'arrowUp' : 'arrowDown',
          // Fills of triggered plan orders (stops, targets) in amber, apart from the strategy's own.
          color: m.plan ? '#ff9800' : m.buy ? '#26a69a' : '#ef5350',
          text: m.text,
        };
      });
      LWC.createSeriesMarkers(line, markers);
      points += markers.length;
      c.timeScale().fitContent();
      priceCharts[s.symbol] = { chart: c, holder: holder };
    });

    var eqNote =
      'Account equity (green) and buy and hold of the same starting balance (grey), quote currency.';
    var eq = chart(section('Equity vs buy and hold', eqNote), first, span, moneyFormat);
    first = false;
    var money = { type: 'custom', minMove: 0.01, formatter: moneyFormat };
    if (data.charts.buyAndHold.t.length > 0) {
      eq.addSeries(LWC.LineSeries, {
        color: '#9e9e9e',
        lineWidth: 1,
        lineStyle: 2,
        priceFormat: money,
        title: 'buy and hold',
      }).setData(pairs(data.charts.buyAndHold));
      points += data.charts.buyAndHold.t.length;
    }
    eq.addSeries(LWC.LineSeries, {
      color: '#2e7d32',
      lineWidth: 2,
      priceFormat: money,
      title: 'equity',
    }).setData(pairs(data.charts.equity));
    points += data.charts.equity.t.length;
    eq.timeScale().fitContent();

    var dd = chart(
      section('Underwater', 'Equity below its running peak, in percent.'),
      false,
      span,
      percentFormat,
    );
    dd.addSeries(LWC.BaselineSeries, {
      baseValue: { type: 'price', price: 0 },
      topLineColor: '#c62828',
      topFillColor1: 'rgba(198, 40, 40, 0)',
      topFillColor2: 'rgba(198, 40, 40, 0)',
      bottomLineColor: '#c62828',
      bottomFillColor1: 'rgba(198, 40, 40, 0.05)',
      bottomFillColor2: 'rgba(198, 40, 40, 0.4)',
      lineWidth: 1,
      priceFormat: { type: 'custom', minMove: 0.01, formatter: percentFormat },
    }).setData(pairs(data.charts.drawdown));
    points += data.charts.drawdown.t.length;
    dd.timeScale().fitContent();

    var tradeRows = renderTrades(data.tradeColumns, data.trades, function (t) {
      var target = priceCharts[t.symbol];
      if (!target) return;
      var pad = Math.max(60, Math.round((t.to - t.from) * 0.25));
      target.chart.timeScale().setVisibleRange({ from: t.from - pad, to: t.to + pad });
      target.holder.parentNode.scrollIntoView({ block: 'start' });
    });

    // The library paints on animation frames: report success only after a frame has been painted,
    // and never over an error reported in the meantime.
    window.requestAnimationFrame(function () {
      window.requestAnimationFrame(function () {
        if (body.dataset.status !== 'loading') return;
        body.dataset.points = String(points);
        body.dataset.canvases = String(document.querySelectorAll('canvas').length);
        body.dataset.tradeRows = String(tradeRows);
        body.dataset.status = 'ok';
      });
    });
  }

  try {
    main();
  } catch (e) {
    fail(e && e.message ? e.message : String(e));
  }
})();
