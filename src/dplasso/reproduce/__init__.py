"""dplasso.reproduce"""
