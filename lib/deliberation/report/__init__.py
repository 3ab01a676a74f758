"""Outgoing records: the decision record (structured and Markdown) and the HTML report."""
