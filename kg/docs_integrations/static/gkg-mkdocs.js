/* glossary-kg MkDocs plugin: cards from window.GKG_CARDS (cards.js, written by the build), so a
 * built site shows them with no server and no network. Card links are relative to the site root. */
(function () {
  "use strict";
  var me = document.currentScript;
  var root = new URL("../../", me ? me.src : location.href); // assets/glossary-kg/ → site root
  window.GlossaryKG.attach({
    card: function (id, lang) {
      var cards = window.GKG_CARDS || {};
      return (cards[lang] || {})[id] || (cards[lang === "zh" ? "en" : "zh"] || {})[id] || null;
    },
    link: function (url) {
      try {
        return new URL(url, root).href;
      } catch (e) {
        return url;
      }
    },
  });
})();
