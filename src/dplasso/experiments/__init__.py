"""dplasso.experiments"""
